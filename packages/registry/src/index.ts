export { registryPlugin } from './http/registry-plugin.js';
export { createHttpApp, renderOpenApi, API_VERSION } from './http/app.js';
export { sendError, sendNotFound, toWeftError } from './http/errors.js';
export { compileRegistryOptions, DEFAULT_BODY_LIMIT } from './options.js';
export type { RegistryOptions, CompiledRegistryOptions } from './options.js';
export { RegistryService } from './service.js';
/** Kept for callers of the registry's former `createKey`: keys are `@weft/identity`'s now. */
export { createApiKey as createKey } from '@weft/identity';
export type { Submission } from './service.js';
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
export { slugKey, slugProblem, versionProblem } from './rules/names.js';
export { latestVersion, availableVersions } from './rules/versions.js';
export type { RegistryClock } from './rules/clock.js';
export { SEARCH_LIMITS } from './search-query.js';
export { agentDefinition, agentSlug, agentRefOf, isAgentSubmission } from './agent-kind.js';
export type { AgentDefinitionCheck, AgentCheckResult, AgentSummary } from './agent-kind.js';
