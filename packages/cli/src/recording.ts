import type { StreamEvent } from '@weft/core';
import type {
  AttemptSpan,
  RecordedStep,
  RecordSource,
  RunResult,
  WorkflowDefinition,
} from '@weft/engine';
import type { ExecutionRecord } from '@weft/sdk/client';

/** An event as a run gives it or a server stores it: what the recording reads of it. */
type EventLike = Pick<StreamEvent, 'type' | 'workflow_id' | 'step_name' | 'data'>;

/**
 * Collects, from a run's events, the attempt log of every step that made more than one attempt
 * (`attempt_log` of `step.completed` / `step.failed`): which attempt of which item failed with
 * which code. Step records count attempts; only the log says which failed.
 */
export class AttemptLogs {
  private readonly byRun = new Map<string, Map<string, AttemptSpan[]>>();

  /** Takes one event (a run's `observe`, or a stored event of the server). */
  readonly add = (event: EventLike): void => {
    if (event.type !== 'step.completed' && event.type !== 'step.failed') return;
    const log = event.data['attempt_log'];
    if (!Array.isArray(log)) return;
    let run = this.byRun.get(event.workflow_id);
    if (!run) this.byRun.set(event.workflow_id, (run = new Map()));
    // A parallel child's events name it `block/child`; its record, `child`.
    const name = event.step_name.split('/').at(-1)!;
    run.set(
      name,
      log.map((span: { item?: unknown; error_code?: unknown }) => ({
        ...(typeof span.item === 'number' ? { item: span.item } : {}),
        ...(typeof span.error_code === 'string' ? { error_code: span.error_code } : {}),
      })),
    );
  };

  /** The logs of one run (not of the subworkflows it called), by step name. */
  of(executionId: string): ReadonlyMap<string, AttemptSpan[]> {
    return this.byRun.get(executionId) ?? new Map();
  }
}

/** What a fixture is recorded from, for a run of this process (`weft workflow run --record`). */
export function sourceOfRun(
  workflow: WorkflowDefinition,
  inputs: Record<string, unknown>,
  result: RunResult,
  logs: AttemptLogs,
): RecordSource {
  return {
    executionId: result.execution_id,
    workflow,
    revision: workflow.version,
    finishedAt: result.finished_at,
    inputs,
    outputs: result.outputs,
    steps: result.steps,
    attemptLogs: logs.of(result.execution_id),
  };
}

/** What a fixture is recorded from, for an execution of a server (`weft execution record`). */
export function sourceOfRecord(
  record: ExecutionRecord,
  workflow: WorkflowDefinition,
  logs: AttemptLogs,
): RecordSource {
  return {
    executionId: record.execution_id,
    workflow,
    revision: record.workflow_version,
    finishedAt: record.finished_at ?? '',
    inputs: record.inputs ?? {},
    outputs: record.result?.outputs ?? {},
    steps: (record.result?.steps ?? {}) as Record<string, RecordedStep>,
    attemptLogs: logs.of(record.execution_id),
  };
}
