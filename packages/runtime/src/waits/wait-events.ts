import {
  streamedTypes,
  ValidationError,
  waitEventType,
  type EventRow,
  type StoredExecution,
  type StreamEvent,
  type WaitEventPhase,
  type WaitingFor,
  type Workflow,
} from '@weft/core';

/**
 * A request to start an execution `waiting` (see `WaitingFor`): it runs only once resumed
 * (`Runtime.resumeExecution`), ends when rejected (`Runtime.endWaiting`) or canceled, and
 * fails with `TIMEOUT` at its deadline.
 */
export interface WaitRequest {
  /** What it waits for: `approval`, … (a word; its events are `<kind>.requested`, …). */
  kind: string;
  /** Milliseconds it may wait before it fails with `TIMEOUT`. None: until resumed or ended. */
  timeoutMs?: number;
  /** Fields of the kind, on `waiting_for` and in the `<kind>.requested` event (`approvers`). */
  details?: Record<string, unknown>;
}

/** Fields of `waiting_for` that {@link WaitRequest.details} may not set. */
const RESERVED = ['kind', 'since', 'expires_at'];

/** Throws `VALIDATION` for a wait request a record could not carry. */
export function checkWait(wait: WaitRequest): void {
  if (!/^[a-z][a-z0-9_]{0,63}$/.test(wait.kind)) {
    throw new ValidationError(
      `a wait's kind must be a lower-case word (it names events: <kind>.requested), got ${JSON.stringify(wait.kind)}`,
      { field: 'wait.kind', constraint: 'pattern' },
    );
  }
  const timeout = wait.timeoutMs;
  if (timeout !== undefined && !(Number.isSafeInteger(timeout) && timeout > 0)) {
    throw new ValidationError(`a wait's timeout must be a positive whole number of ms`, {
      field: 'wait.timeoutMs',
      constraint: 'range',
    });
  }
  const reserved = RESERVED.filter((field) => wait.details && field in wait.details);
  if (reserved.length > 0) {
    throw new ValidationError(`a wait's details may not set ${reserved.join(', ')}`, {
      field: 'wait.details',
      constraint: 'reserved',
    });
  }
}

/** What an execution starting to wait at `now` (ms) for `wait` waits for. */
export function waitingFor(wait: WaitRequest, now: number): WaitingFor {
  return {
    ...wait.details,
    kind: wait.kind,
    since: new Date(now).toISOString(),
    expires_at: wait.timeoutMs === undefined ? null : new Date(now + wait.timeoutMs).toISOString(),
  };
}

/** The deadline of a wait in ms; undefined without one. */
export function deadlineOf(waiting: WaitingFor): number | undefined {
  return waiting.expires_at === null ? undefined : Date.parse(waiting.expires_at);
}

/**
 * The stored event of a wait of `kind` reaching `phase` (`approval.granted`), numbered `seq`;
 * none when the workflow streams no events (`execution.streaming.enabled: false`).
 */
export function waitEvents(
  execution: Pick<StoredExecution, 'id' | 'definition'>,
  kind: string,
  phase: WaitEventPhase,
  data: Record<string, unknown>,
  at: string,
  seq: number,
): EventRow[] {
  const workflow = execution.definition.workflow as Pick<Workflow, 'execution'>;
  if (streamedTypes(workflow.execution?.streaming) === false) return [];
  const event: StreamEvent = {
    type: waitEventType(kind, phase),
    timestamp: at,
    workflow_id: execution.id,
    step_name: '',
    data,
  };
  return [{ seq, type: event.type, json: JSON.stringify(event) }];
}

/** The `<kind>.requested` event's data: what it waits for, without the kind and start. */
export function requestedData(waiting: WaitingFor): Record<string, unknown> {
  const { kind: _kind, since: _since, ...data } = waiting;
  return data;
}
