import type { ErrorObject } from '@weft/core';

/** Status of a step (DESIGN.md §4): `skipped` when its condition was false. */
export type StepStatus = 'success' | 'failed' | 'skipped';

/** Status of a finished run. */
export type RunStatus = 'completed' | 'failed' | 'canceled';

/** What the run keeps of every step. */
export interface StepRecord {
  status: StepStatus;
  /** The output (an array in item order for `for_each`; children by name for a parallel block). */
  output?: unknown;
  /** The outputs of a subworkflow step. */
  outputs?: Record<string, unknown>;
  error?: ErrorObject;
  /** Attempts made (for `for_each`, summed over the items). */
  attempts: number;
  /** ISO 8601 UTC. */
  started_at: string;
  finished_at: string;
  duration_ms: number;
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
}
