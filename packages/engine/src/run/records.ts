import type { ErrorObject, InvocationUsage } from '@weft/core';

/**
 * Status of a step (docs/design.md#workflow-semantics): `skipped` when its condition was false,
 * `canceled` when the run was canceled while it ran (its error is the cancellation's).
 */
export type StepStatus = 'success' | 'failed' | 'skipped' | 'canceled';

/** Status of a finished run. */
export type RunStatus = 'completed' | 'failed' | 'canceled';

/** What the run keeps of every step. */
export interface StepRecord {
  status: StepStatus;
  /** The output (an array in item order for `for_each`; children by name for a parallel block). */
  output?: unknown;
  /** The outputs of a subworkflow step. */
  outputs?: Record<string, unknown>;
  /**
   * The input it was given (action, agent and transform steps; a list in item order for
   * `for_each`), with every value a template read from `secrets.*` shown as `***` and any secret
   * value found in it masked. Absent when it never got one (skipped, failed before it).
   */
  input?: unknown;
  error?: ErrorObject;
  /** Attempts made (for `for_each`, summed over the items). */
  attempts: number;
  /** ISO 8601 UTC. */
  started_at: string;
  finished_at: string;
  duration_ms: number;
  /**
   * What the step's invocations reported they consumed (agent steps: tokens, cost, tool calls),
   * summed over attempts and items; a subworkflow step sums its steps. Absent when none did.
   */
  usage?: InvocationUsage;
}

/** The result of running a workflow. */
export interface RunResult {
  execution_id: string;
  workflow: string;
  status: RunStatus;
  outputs: Record<string, unknown>;
  /** Every step that ran or was skipped, parallel children included, by name. */
  steps: Record<string, StepRecord>;
  error?: ErrorObject;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  /**
   * A dry run only: the steps answered from `testing.dryRun.mockData` (nothing was called for
   * them), in the order they were first answered.
   */
  mocked_steps?: { step: string; target: string; action: string }[];
}

/**
 * A finished step as the durability hook reports it and as a resumed run takes it back
 * (`RunOptions.journal`): enough to skip the step and feed its outputs to later templates.
 * Plain JSON; `entry` of a parallel block holds its children's entries by name.
 */
export interface JournaledStep {
  /** Path of the step: `step`, or `block/child` for a child of a parallel block. */
  path: string;
  /** What `steps.<name>` reads: `status`, `output`, `outputs`, `error` (raw, not masked). */
  entry: {
    status: StepStatus;
    output?: unknown;
    outputs?: Record<string, unknown>;
    error?: unknown;
    [child: string]: unknown;
  };
  attempts: number;
  /** Milliseconds since the epoch. */
  started_ms: number;
  finished_ms: number;
  /** {@link StepRecord.usage}: kept so that a resumed run still counts it. */
  usage?: InvocationUsage;
  /** {@link StepRecord.input}, already masked. */
  input?: unknown;
}
