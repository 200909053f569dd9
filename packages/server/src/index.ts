export { buildServer, storeOptionsOf, SERVER_SQLITE_READERS } from './build.js';
export type { BuiltServer, ServerDependencies } from './build.js';
export { startServer, closeOnSignals } from './start.js';
export type { RunningServer } from './start.js';
export { compileServerOptions, serverOptionsFromEnv } from './config.js';
export type { ServerOptions, CompiledServerOptions } from './config.js';
export { createLocalKey, moveLocalOwner, revokeLocalKey } from './local-keys.js';
/** Detector settings are `@weft/agents`' (the CLI reads them too); kept here for callers. */
export {
  configuredDetectorsOf,
  moderationDetectorOptions,
  moderationSettingsFromEnv,
  judgeDetectorOptions,
  judgeSettingsFromEnv,
} from '@weft/agents';
export type { ModerationSettings, JudgeSettings } from '@weft/agents';
export { compileIdentityOptions, identityOptionsFromEnv } from '@weft/identity';
export type { IdentityServerOptions, CompiledIdentityOptions } from '@weft/identity';
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
  agentDefinition,
  agentSlug,
  isAgentSubmission,
  slugProblem,
} from '@weft/registry';
export { registryAgentCheck } from './published-agents.js';
export type { DefinitionFormat, DefinitionProblem } from '@weft/registry';
export { renderOpenApi } from '@weft/http';
export { renderServerOpenApi } from './openapi.js';
export * from './settings/index.js';
