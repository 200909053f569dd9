/**
 * `@weft/sdk/client`: the browser-safe HTTP client of a weft server's public API, for the web
 * console (built with Vite) and any runtime with `fetch`. It imports `@weft/core` and nothing of
 * Node, Fastify or pino (a test bundles it for the browser to keep it so).
 */
export {
  WeftClient,
  type SearchPluginsOptions,
  type StartExecutionOptions,
  type WeftClientOptions,
} from './weft-client.js';
export { ApiError, type ErrorAnswer } from './api-error.js';
export { HttpApi, type ApiAnswer, type ApiRequest, type HttpApiOptions } from './http-api.js';
export {
  FetchTransport,
  chunksOf,
  type Credentials,
  type FetchFunction,
  type FetchTransportOptions,
} from './fetch-transport.js';
export {
  TransportError,
  type HttpMethod,
  type HttpTransport,
  type ResponseHeaders,
  type TransportRequest,
  type TransportResponse,
} from './transport.js';
export { FINISHED_STATUSES, isFinishedStatus } from '@weft/core';
export {
  cancelExecution,
  getExecution,
  listExecutions,
  postExecution,
  rerunExecution,
  waitForExecution,
  type ExecutionPage,
  type ExecutionStatus,
  type ListExecutionsOptions,
  type RerunOptions,
  type StartOptions,
  type WaitOptions,
} from './executions.js';
export {
  approveExecution,
  decideExecution,
  listApprovals,
  rejectExecution,
  MAX_DECISION_COMMENT,
  type ApprovalVerdict,
  type DecisionOptions,
  type ListApprovalsOptions,
} from './approvals.js';
export { streamExecution, type ExecutionEvent, type StreamOptions } from './event-stream.js';
export { parseSse, type SseMessage } from './sse.js';
export { WeftError, isErrorCode, type ErrorCode, type ErrorObject } from '@weft/core';
export type { DeployedWorkflowList, ExecutionRecord } from './wire.js';
export type {
  DeployedWorkflowDetail,
  DeployedWorkflowSummary,
  HealthResponse,
  PluginDetail,
  PluginSummary,
  RouteEntry,
  RoutesResponse,
  SearchResponse,
  StreamEvent,
} from '@weft/core';
