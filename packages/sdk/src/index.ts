/**
 * `@weft/sdk`: the public SDK of weft. This part: connector definitions (Appendix B.1), action
 * handlers and the `local` execution mode's invoker. See `README.md` in this package.
 */
export { LocalInvoker } from './invoker/local-invoker.js';
export { CONNECTOR_FILE } from './invoker/read-files.js';
export {
  compileInvokerOptions,
  DEFAULT_MAX_OUTPUT_BYTES,
  type CompiledInvokerOptions,
  type LocalInvokerOptions,
} from './invoker/options.js';
export type { Resolved } from './invoker/connector-table.js';
export {
  handler,
  decoratedHandlers,
  parseHandlerKey,
  type ActionHandler,
  type DecoratedHandler,
  type HandlerKey,
} from './handlers/handler.js';
export type {
  CompiledAction,
  CompiledConnector,
  ConnectorDefaults,
} from './connector/compile-connector.js';
export { connectorRef } from './connector/compile-connector.js';
export {
  parseConnectorDefinition,
  type ParseDefinitionOptions,
} from './connector/parse-definition.js';
export { interpolateEnvironment, type Environment } from './connector/interpolate-env.js';
export type { ShellResult } from './kinds/shell.js';
/** The connector sandbox of `shell` actions (docs/workflow-language.md#connector-runtime). */
export {
  Sandbox,
  LIMIT_NAMES,
  type SandboxMode,
  type SandboxOptions,
  type CellRequest,
  type LimitName,
  type LimitSupport,
  sandboxLogLine,
  type SandboxLogLine,
} from './sandbox/index.js';
export { Weft } from './client/weft.js';
export type { ExecuteOptions, ExecuteAsyncOptions } from './client/execute-options.js';
export type { ApprovalAnswer, ApprovalRequest, ApproveRun } from './client/local-authorization.js';
export type { LocalAuditEntry, OnAudit } from './client/local-audit.js';
export type { RegisterConnectorOptions } from './client/cloud-connectors.js';
export { registrySettings, type RegistrySettings } from './client/registry-settings.js';
export { loadWorkflow, loadWorkflowFile } from './client/load.js';
export {
  checkWeftOptions,
  cloudSettings,
  type CloudSettings,
  type WeftOptions,
  type LocalWeftOptions,
  type SelfHostedWeftOptions,
  type CloudWeftOptions,
  type HybridWeftOptions,
  type CommonWeftOptions,
  type RunsHereOptions,
  type RouterAccessOptions,
  type LogLevel,
} from './client/options.js';
export {
  CloudApi,
  checkCloudUrl,
  type CloudApiOptions,
  type CloudAnswer,
} from './client/cloud-api.js';
export { toRunResult } from './client/cloud-executions.js';
export {
  type ExecutionPage,
  type StartOptions,
  type WaitOptions,
} from './http-client/executions.js';
export {
  type ApprovalVerdict,
  type DecisionOptions,
  type ListApprovalsOptions,
} from './http-client/approvals.js';
/** Execution statuses that do not change any more (core's, one list for the whole platform). */
export { FINISHED_STATUSES, isFinishedStatus } from '@weft/core';
export {
  streamExecution,
  type ExecutionEvent,
  type StreamOptions,
} from './http-client/event-stream.js';
export { parseSse } from './http-client/sse.js';
export {
  streamOverWebSocket,
  type ServerStreamOptions,
  type StreamProtocol,
} from './client/websocket-stream.js';
export { ApiError } from './http-client/api-error.js';
export { HttpApi, type HttpApiOptions } from './http-client/http-api.js';
export { WeftClient, type WeftClientOptions } from './http-client/weft-client.js';
export { syncPlugins, type SyncResult, type SyncSource } from './client/sync-plugins.js';
export { CloudInvoker } from './invoker/cloud-invoker.js';
export {
  HybridInvoker,
  type ExecutionOverride,
  type ExecutionPlace,
  type HybridInvokerOptions,
  type StepExecution,
} from './invoker/hybrid-invoker.js';
export type {
  AuthorizationCheck,
  AuthorizationRefusal,
  RunResult,
  StepRecord,
  WorkflowDefinition,
} from '@weft/engine';
export {
  RouterInvoker,
  checkRouterUrl,
  type RouterInvokerOptions,
} from './invoker/router-invoker.js';
/**
 * The connector service kit (`createConnectorService`, `ConnectorHost`, the Fastify routes) is
 * `@weft/sdk/service`: it loads Fastify, which a client, handler or CLI never needs.
 */
export type { ClientTls } from './service/router-client.js';
export type { ExecutionContext, ExecutionRecord, Principal } from '@weft/core';
/** Declares who a local run acts as: `new Weft({ identity: localPrincipal({ roles, permissions }) })`. */
export { localPrincipal } from '@weft/core';
