/**
 * `@weft/registry/definitions`: what a client checks of a plugin or agent definition the way the
 * registry does (parsing, the rules, checksums, signatures), without the registry's HTTP routes:
 * importing it loads no Fastify, so the `weft` command starts fast.
 */
export { parseDefinitionBytes, DEFAULT_PARSE_LIMITS } from './definition/parse.js';
export type {
  DefinitionFormat,
  DefinitionProblem,
  ParseResult,
  ParseLimits,
} from './definition/parse.js';
export { validateDefinition } from './definition/validate.js';
export type { ValidationResult } from './definition/validate.js';
export { checksumOf, contentTypeOf } from './definition/checksum.js';
export {
  signedPayload,
  verifyDefinitionSignature,
  signDefinition,
  readPublicKey,
} from './signatures.js';
export type { SignatureCheck } from './signatures.js';
export { agentDefinition, agentSlug, agentRefOf, isAgentSubmission } from './agent-kind.js';
export type { AgentDefinitionCheck, AgentCheckResult, AgentSummary } from './agent-kind.js';
export { slugProblem, versionProblem } from './rules/names.js';
