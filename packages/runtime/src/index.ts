/** @packageDocumentation weft runtime: executions API, triggers, scheduler and workers */
export {
  Runtime,
  isFinished,
  fingerprintOf,
  type ExecutionRequest,
  type PreparedExecutions,
  type StartedExecution,
  type ActionRequest,
} from './runtime.js';
export type { WaitRequest } from './waits/wait-events.js';
export type { WaitDecision, WaitRejection, WaitResume, WaitTarget } from './waits/decisions.js';
export type { WaitDeadlines } from './waits/deadlines.js';
export {
  compileRuntimeOptions,
  type RuntimeOptions,
  type CompiledRuntimeOptions,
  type ServerActions,
  type ExecutionOwner,
  type CallbackPolicy,
} from './options.js';
export { runtimeRoutes } from './http/plugin.js';
export type { RunLog, RunTraceFields } from './options.js';
export {
  RetentionSweeper,
  type RetentionOptions,
  type RetentionOverride,
  type RetentionPass,
} from './retention/sweeper.js';
export { loadRequestedWorkflow, type ExecutableWorkflow } from './executions/definition.js';
export { toExecutionRecord, pollUrl } from './executions/record.js';
export { actionTargets } from './executions/targets.js';
export { journaledCostUsd } from './executions/journal-cost.js';
export { CallbackEgress } from './callbacks/egress.js';
export { signWebhook, generateSigningSecret } from '@weft/sdk/callbacks';
export * from './triggers/index.js';
export * from './deployments/index.js';
export * from './audit/index.js';
