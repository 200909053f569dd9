export * from './diagnostics.js';
export * from './model.js';
export * from './load/options.js';
export * from './load/load-workflows.js';
export { CONNECTOR_LIMITS, checkRuntime } from './validate/runtime-limits.js';
export { runtimeProblems, type RuntimeProblem } from './validate/runtime-problems.js';
export { matchesInputType } from './validate/inputs.js';
export { isTimeZone, isAddressOrCidr } from './validate/triggers.js';
export * from './summary.js';
export { parseBytes, parseByteRate, parseCpu } from './validate/quantities.js';
export { parseWorkflowSource, type ParsedSource } from './load/parse-document.js';
export { fromYaml, toYaml } from './load/to-yaml.js';
export { Reporter, type ReportExtras } from './load/reporter.js';
export { SchemaChecker, isPlainObject } from './validate/schema-check.js';
export * from './run/records.js';
export { runWorkflow } from './run/run-workflow.js';
export {
  compileRunOptions,
  DEFAULT_ACTION_TIMEOUT_MS,
  DEFAULT_MAX_FOR_EACH_ITEMS,
  type RunOptions,
} from './run/options.js';
export { resolveInputs, coerce } from './run/inputs.js';
export { FoundSecrets, MASK, ResolvedSecrets } from './run/secrets.js';
export { MIN_JSON_LEAF_LENGTH } from './run/secret-forms.js';
export { MAX_SUBWORKFLOW_DEPTH } from './run/subworkflow.js';
export { calledWorkflows, pickWorkflow, type WorkflowCall } from './run/workflow-versions.js';
export type {
  AgentCall,
  AgentInvoker,
  ToolApprovalGate,
  ToolApprovalRequest,
  ToolCallRequest,
  ToolDecision,
  ToolRunner,
} from './run/agent-call.js';
export type { ToolInvocationInfo } from './run/attempt-tools.js';
export { DryRunInterceptor, ownerOf, type DryRunSettings, type MockedStep } from './run/dry-run.js';
export { ReplayInterceptor } from './run/replay.js';
export * from './fixtures/record.js';
export * from './fixtures/file.js';
export * from './fixtures/diff.js';
export * from './fixtures/replay-run.js';
export {
  standardInterceptors,
  type StandardInterceptorParts,
} from './run/standard-interceptors.js';
export type {
  Invocation,
  RunInfo,
  RunInterceptor,
  StepCall,
  StepInfo,
  StepOutcome,
  TargetCheck,
} from './run/interceptors.js';
export * from './authorization/index.js';
