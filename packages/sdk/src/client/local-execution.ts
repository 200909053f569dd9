import {
  CanceledError,
  FINISHED_STATUSES,
  toErrorObject,
  type CallbackInfo,
  type ExecutionRecord,
  type StreamEvent,
} from '@weft/core';
import type { RunResult } from '@weft/engine';
import type { ExecutionEvent } from '../http-client/event-stream.js';

/** Events kept per run for late subscribers of `stream()`; older ones are dropped first. */
export const EVENT_BACKLOG = 1000;

/** What a local asynchronous run is made of. */
export interface LocalExecutionStart {
  executionId: string;
  workflow: string;
  workflowVersion: string;
  /** The client's execution mode (`local`, `self_hosted`, `hybrid`), shown as the record's `mode`. */
  mode: string;
  callbackUrl?: string | undefined;
}

/**
 * One asynchronous run in this process: its execution record (docs/runtime.md#execution-record),
 * kept as the run goes; the last {@link EVENT_BACKLOG} events of the run with their ids; a
 * signal that cancels it.
 */
export class LocalExecution {
  readonly controller = new AbortController();
  private current: ExecutionRecord;
  private readonly events: ExecutionEvent[] = [];
  private nextEventId = 1;
  private readonly listeners = new Set<() => void>();
  private endedResolve!: () => void;
  /** Resolves once the record has ended (the callback may still be on its way). */
  readonly ended = new Promise<void>((resolve) => (this.endedResolve = resolve));

  constructor(start: LocalExecutionStart) {
    const id = start.executionId;
    this.current = {
      execution_id: id,
      status: 'pending',
      poll_url: `/workflows/executions/${id}`,
      workflow: start.workflow,
      workflow_version: start.workflowVersion,
      mode: start.mode,
      trigger: 'api',
      created_at: new Date().toISOString(),
      started_at: null,
      finished_at: null,
      ...(start.callbackUrl !== undefined
        ? {
            callback: {
              url: start.callbackUrl,
              status: 'pending',
              attempts: 0,
              last_status: null,
              last_error: null,
              webhook_id: `msg_${id}`,
              delivered_at: null,
            },
          }
        : {}),
    };
  }

  /** A copy of the record as it is now. */
  record(): ExecutionRecord {
    return structuredClone(this.current);
  }

  /** True once the run ended `completed`, `failed` or `canceled`. */
  get finished(): boolean {
    return FINISHED_STATUSES.has(this.current.status);
  }

  /** The run began (after its authorization, in the same turn as its first step). */
  markRunning(): void {
    if (this.current.status === 'pending') {
      this.current = { ...this.current, status: 'running', started_at: new Date().toISOString() };
    }
  }

  /** Keeps an event of the run (dropping the oldest past {@link EVENT_BACKLOG}) and wakes streams. */
  addEvent(event: StreamEvent): void {
    this.markRunning();
    this.events.push({ ...event, id: String(this.nextEventId++) });
    if (this.events.length > EVENT_BACKLOG) this.events.shift();
    this.wake();
  }

  /** Ends the record with the run's result. */
  endWith(result: RunResult): void {
    const canceledAt =
      result.status === 'canceled' ? result.error?.details['canceled_at'] : undefined;
    this.end({
      status: result.status,
      started_at: this.current.started_at ?? result.started_at,
      finished_at: result.finished_at,
      result: { outputs: result.outputs, steps: result.steps },
      ...(result.error ? { error: result.error } : {}),
      ...(typeof canceledAt === 'string' ? { canceled_at: canceledAt } : {}),
    });
  }

  /** Ends the record `failed` (or `canceled`) with an error thrown before the run's first step. */
  endWithError(error: unknown): void {
    const object = toErrorObject(error);
    const now = new Date().toISOString();
    const canceled = error instanceof CanceledError;
    this.end({
      status: canceled ? 'canceled' : 'failed',
      finished_at: now,
      result: { outputs: {}, steps: {} },
      error: object,
      ...(canceled ? { canceled_at: now } : {}),
    });
  }

  /** Shows the callback's delivery state on the record. */
  setCallback(state: CallbackInfo): void {
    this.current = { ...this.current, callback: { ...state } };
  }

  /**
   * The kept events after `lastEventId` (all kept ones without it), then each new one, until the
   * run has ended and every event was given; `signal` stops early.
   */
  async *follow(lastEventId?: string, signal?: AbortSignal): AsyncGenerator<ExecutionEvent> {
    let after = lastEventId === undefined ? 0 : Number(lastEventId);
    for (;;) {
      const fresh = this.events.filter((event) => Number(event.id) > after);
      for (const event of fresh) {
        if (signal?.aborted) return;
        yield event;
        after = Number(event.id);
      }
      if (fresh.length > 0) continue;
      if (this.finished || signal?.aborted) return;
      await this.next(signal);
    }
  }

  private end(fields: Partial<ExecutionRecord>): void {
    if (this.finished) return;
    this.current = { ...this.current, ...fields };
    this.endedResolve();
    this.wake();
  }

  private next(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.listeners.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.listeners.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  private wake(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
