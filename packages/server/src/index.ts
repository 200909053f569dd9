export { buildServer, storeOptionsOf } from './build.js';
export type { BuiltServer, ServerDependencies } from './build.js';
export { startServer, closeOnSignals } from './start.js';
export type { RunningServer } from './start.js';
export { compileServerOptions, serverOptionsFromEnv, envFlag } from './config.js';
export type { ServerOptions, CompiledServerOptions } from './config.js';
export { createLocalKey, moveLocalOwner, revokeLocalKey } from './local-keys.js';
export {
  configuredDetectorsOf,
  moderationDetectorOptions,
  moderationSettingsFromEnv,
} from './moderation-config.js';
export type { ModerationSettings } from './moderation-config.js';
export { judgeDetectorOptions, judgeSettingsFromEnv } from './judge-config.js';
export type { JudgeSettings } from './judge-config.js';
export { compileIdentityOptions, identityOptionsFromEnv } from './identity-config.js';
export type { IdentityServerOptions, CompiledIdentityOptions } from './identity-config.js';
export { AccessFileWatcher } from './access-file-watcher.js';
export type { ServerIdentity } from './identity.js';
export { registerHealth, SERVER_VERSION } from './health.js';
export {
  parseDefinitionBytes,
  validateDefinition,
  checksumOf,
  signedPayload,
  signDefinition,
  verifyDefinitionSignature,
  renderOpenApi,
  agentDefinition,
  agentSlug,
  isAgentSubmission,
  slugProblem,
} from '@weft/registry';
export { registryAgentCheck } from './published-agents.js';
export type { DefinitionFormat, DefinitionProblem } from '@weft/registry';
export { renderServerOpenApi } from './openapi.js';
