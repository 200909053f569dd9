/** Execution modes (docs/protocol.md#execution-modes). */
export const EXECUTION_MODES = ['local', 'self_hosted', 'cloud', 'hybrid'] as const;
export type ExecutionMode = (typeof EXECUTION_MODES)[number];

/** What a step has produced so far, as handlers see it in `previousSteps`. */
export interface PreviousStep {
  status: 'success' | 'failed' | 'skipped' | 'canceled';
  output?: unknown;
  /** Outputs of a subworkflow step. */
  outputs?: Record<string, unknown>;
}

/**
 * The execution context (docs/protocol.md#execution-context), given to every action handler. Field names are the
 * camelCase forms of the spec's keys: `workflowId` (workflow_id), `stepName` (step_name),
 * `executionMode` (execution_mode), `previousSteps` (previous_steps).
 */
export interface ExecutionContext {
  /** Unique id of the workflow execution. */
  readonly workflowId: string;
  /** Name of the running step. */
  readonly stepName: string;
  /** Workflow-level inputs. */
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly executionMode: ExecutionMode;
  /** Environment variables (the SDK's `environment` over the process environment). */
  readonly environment: Readonly<Record<string, string | undefined>>;
  /** Secret values the workflow reads, by name. */
  readonly secrets: Readonly<Record<string, string>>;
  /** Results of the steps that finished before this one, by step name. */
  readonly previousSteps: Readonly<Record<string, PreviousStep>>;
  /** Aborted when the attempt times out or the execution is canceled. */
  readonly signal: AbortSignal;
  /** Whether `signal` has fired (cheaper than creating the signal just to ask). */
  readonly aborted: boolean;
  /** Idempotency key of this action call: `<execution id>/<step path>`. */
  readonly idempotencyKey: string;
  /** Reports progress: emits a `step.progress` event with `data {percent, message}`. */
  progress(percent: number, message?: string): void;
  /**
   * Tells the run a value the action read as a secret by a path of its own (an agent's
   * `api_key_secret`, a connector's credential): from then on the run masks it as `***` in
   * everything it records or sends (outputs, step records, events, errors). A JSON object or
   * array contributes its string leaves of 8 characters or more. Absent outside a run.
   */
  addSecret?(name: string, value: string): void;
}
