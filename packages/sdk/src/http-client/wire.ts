import type {
  DeployedWorkflowList as DeployedWorkflowListSchema,
  DeployedWorkflowSummary,
  ExecutionRecord as ExecutionRecordSchema,
} from '@weft/core';

/**
 * An execution record (docs/runtime.md#execution-record) as the client gives it: core's wire type, with `outputs`
 * and `steps` typed as the JSON objects they are (the schema's open object reads as `{}`).
 */
export type ExecutionRecord = Omit<ExecutionRecordSchema, 'result' | 'inputs'> & {
  result?: { outputs: Record<string, unknown>; steps: Record<string, unknown> };
  /** The inputs it was started with; a `secret: true` input's value is `***`. */
  inputs?: Record<string, unknown>;
};

/** `GET /workflows`: core's wire type, with the summaries typed (the schema refers to them). */
export type DeployedWorkflowList = Omit<DeployedWorkflowListSchema, 'workflows'> & {
  workflows: DeployedWorkflowSummary[];
};
