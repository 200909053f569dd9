import { randomUUID } from 'node:crypto';
import { CanceledError, ConflictError, TimeoutError, type ExecutionRecord } from '@weft/core';
import { generateSigningSecret } from '../callbacks/index.js';
import { resolveInputs, type RunResult, type WorkflowDefinition } from '@weft/engine';
import type { ExecutionEvent, StreamOptions } from '../http-client/event-stream.js';
import type { WaitOptions } from '../http-client/executions.js';
import type { ExecuteAsyncOptions, ExecuteOptions } from './execute-options.js';
import { sendLocalCallback } from './local-callback.js';
import { LocalExecution } from './local-execution.js';

/** Runs `workflow` in this process as the sync `execute` would, with these run options. */
export type RunHere = (
  workflow: WorkflowDefinition,
  inputs: Record<string, unknown>,
  options: ExecuteOptions,
) => Promise<RunResult>;

/**
 * The asynchronous runs of a client in `local`, `self_hosted` and `hybrid` mode
 * (docs/runtime.md#asynchronous-runs-without-a-server): a table of the runs of this process,
 * keyed by execution id, that lives as long as the process. Each answers as a server execution
 * does: its record, its events, a cancel, and the signed completion callback.
 */
export class LocalExecutions {
  private readonly runs = new Map<string, LocalExecution>();
  private readonly keys = new Map<string, { id: string; request: string }>();
  /** Runs not ended yet, each until its callback has begun. */
  private readonly settling = new Set<Promise<void>>();
  private readonly deliveries = new Set<Promise<void>>();
  private readonly stopCallbacks = new AbortController();
  /** The secret callbacks are signed with (see {@link RunsHereOptions.callbackSecret}). */
  readonly callbackSecret: string;

  constructor(
    private readonly runHere: RunHere,
    private readonly mode: string,
    callbackSecret: string | undefined,
  ) {
    this.callbackSecret = callbackSecret ?? generateSigningSecret();
  }

  /**
   * Starts `workflow` in the background and gives its pending record at once. The same
   * `idempotencyKey` with the same request gives the same execution; with another request it is
   * `CONFLICT`, as on the server.
   */
  start(
    workflow: WorkflowDefinition,
    inputs: Record<string, unknown>,
    options: ExecuteAsyncOptions,
  ): ExecutionRecord {
    // Inputs the workflow refuses are refused now (VALIDATION), as the server answers 400 before
    // it stores anything: no record, no callback, the idempotency key still free.
    resolveInputs(workflow, inputs);
    const key = options.idempotencyKey;
    const request = JSON.stringify([workflow.name, workflow.version, inputs, options.callbackUrl]);
    if (key !== undefined) {
      const before = this.keys.get(key);
      if (before && before.request !== request) {
        throw new ConflictError(`idempotency key "${key}" was used with another request`, {
          field: 'idempotency_key',
          constraint: 'same_request',
          execution_id: before.id,
        });
      }
      if (before) return this.runs.get(before.id)!.record();
    }
    const executionId = randomUUID();
    const run = new LocalExecution({
      executionId,
      workflow: workflow.name,
      workflowVersion: workflow.version,
      mode: this.mode,
      callbackUrl: options.callbackUrl,
    });
    this.runs.set(executionId, run);
    if (key !== undefined) this.keys.set(key, { id: executionId, request });
    const pending = run.record();
    const runOptions: ExecuteOptions = {
      executionId,
      signal: run.controller.signal,
      onEvent: (event) => run.addEvent(event),
    };
    const settled: Promise<void> = Promise.resolve()
      .then(() => this.runHere(workflow, inputs, runOptions))
      .then(
        (result) => run.endWith(result),
        (error: unknown) => run.endWithError(error),
      )
      .then(() => this.deliver(run))
      .finally(() => this.settling.delete(settled));
    this.settling.add(settled);
    return pending;
  }

  /** True when `id` is a run of this process. */
  has(id: string): boolean {
    return this.runs.has(id);
  }

  /** The record of a run as it is now. */
  get(id: string): ExecutionRecord {
    return this.runs.get(id)!.record();
  }

  /**
   * Waits until a run ends (`completed`, `failed` or `canceled`) and gives the ended record:
   * `TIMEOUT` after `timeoutMs`, `CANCELED` when `signal` fires (the run goes on).
   */
  async wait(id: string, options: WaitOptions): Promise<ExecutionRecord> {
    const run = this.runs.get(id)!;
    const { timeoutMs, signal } = options;
    if (signal?.aborted) throw stoppedWaiting(id);
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      await Promise.race([
        run.ended,
        new Promise<never>((_resolve, reject) => {
          if (timeoutMs !== undefined) {
            timer = setTimeout(() => {
              const message = `execution ${id} is still ${run.record().status} after ${timeoutMs} ms; wait again or cancel it`;
              reject(new TimeoutError(message, { timeout_ms: timeoutMs, elapsed_ms: timeoutMs }));
            }, timeoutMs);
          }
          onAbort = () => reject(stoppedWaiting(id));
          signal?.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
    return run.record();
  }

  /** The events of a run, those emitted before the call included (the last 1000 kept). */
  stream(id: string, options: StreamOptions): AsyncGenerator<ExecutionEvent> {
    return this.runs.get(id)!.follow(options.lastEventId, options.signal);
  }

  /**
   * Cancels a run: its steps get their abort signal and it ends `canceled`; gives the ended
   * record. Canceling a canceled run gives it again; one that completed or failed is `CONFLICT`.
   */
  async cancel(id: string): Promise<ExecutionRecord> {
    const run = this.runs.get(id)!;
    const before = run.record();
    if (before.status === 'completed' || before.status === 'failed') {
      throw new ConflictError(`execution ${id} already ended ${before.status}`, {
        status: before.status,
      });
    }
    run.controller.abort();
    await run.ended;
    return run.record();
  }

  /**
   * Cancels every run still going and waits for them to end. Their callbacks (status
   * `canceled`) and those of runs that ended before go out: the attempt under way is finished,
   * but no callback is retried after `close` (no durability without a server).
   */
  async close(): Promise<void> {
    for (const run of this.runs.values()) if (!run.finished) run.controller.abort();
    await Promise.allSettled([...this.settling]);
    this.stopCallbacks.abort();
    await Promise.allSettled([...this.deliveries]);
  }

  private deliver(run: LocalExecution): void {
    const delivery = sendLocalCallback(run, this.callbackSecret, this.stopCallbacks.signal)
      .catch(() => undefined)
      .finally(() => this.deliveries.delete(delivery));
    this.deliveries.add(delivery);
  }
}

function stoppedWaiting(id: string): CanceledError {
  return new CanceledError(`stopped waiting for execution ${id}`, {
    canceled_at: new Date().toISOString(),
  });
}
