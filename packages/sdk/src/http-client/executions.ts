import {
  BackendError,
  CanceledError,
  isFinishedStatus,
  TimeoutError,
  ValidationError,
  type StartExecutionRequest,
} from '@weft/core';
import type { HttpApi } from './http-api.js';
import type { ExecutionRecord } from './wire.js';

/** Options of an execution start. */
export interface StartOptions {
  /** The same key from the same API key returns the same execution. */
  idempotencyKey?: string;
  /** Receives the signed callback (docs/runtime.md#callbacks) when the execution ends (a public http(s) URL). */
  callbackUrl?: string;
  /** `Prefer: wait=N`: the server answers with the ended record if it ends within N seconds. */
  waitSeconds?: number;
  signal?: AbortSignal;
}

/** Options of {@link waitForExecution}. */
export interface WaitOptions {
  /** Delay between polls in milliseconds. Default 250. */
  intervalMs?: number;
  /** Gives up with `TIMEOUT` after this many milliseconds. Default: never. */
  timeoutMs?: number;
  /** Stops waiting with `CANCELED` (the execution goes on on the server). */
  signal?: AbortSignal;
}

/** Execution statuses a list can be filtered by. */
export type ExecutionStatus = ExecutionRecord['status'];

/** Filters and paging of {@link listExecutions}. */
export interface ListExecutionsOptions {
  /** Only executions in this status. */
  status?: ExecutionStatus;
  /** Only executions of this workflow (by name). */
  workflow?: string;
  /** Only executions started by this trigger type: `api`, `manual`, `webhook`, `schedule`, `event`. */
  trigger?: string;
  /** Only executions created at or after this time (RFC 3339). */
  from?: string;
  /** Only executions created before this time (RFC 3339). */
  to?: string;
  /** Page size, 1 to 100. Default 20. */
  limit?: number;
  /** The `next_cursor` of the page before. */
  cursor?: string;
  signal?: AbortSignal;
}

/** One page of the caller's executions, newest first (`GET /workflows/executions`). */
export interface ExecutionPage {
  executions: ExecutionRecord[];
  /** Pass as `cursor` for the next page; null on the last one. */
  next_cursor: string | null;
}

/**
 * `POST /workflows/executions` with the request body (docs/design.md#executions) (`workflow` or `workflow_file`,
 * `workflow_name`, `inputs`; `callback_url` and `idempotency_key` come from `options`): the
 * `pending` record, or the ended one when `waitSeconds` is set and it ended in time.
 */
export async function postExecution(
  api: HttpApi,
  request: Omit<StartExecutionRequest, 'callback_url' | 'idempotency_key'>,
  options: StartOptions = {},
): Promise<ExecutionRecord> {
  const wait = options.waitSeconds;
  const answer = await api.call('POST', '/workflows/executions', {
    body: {
      ...request,
      ...(options.callbackUrl !== undefined ? { callback_url: options.callbackUrl } : {}),
      ...(options.idempotencyKey !== undefined ? { idempotency_key: options.idempotencyKey } : {}),
    },
    headers: wait !== undefined && wait > 0 ? { prefer: `wait=${Math.ceil(wait)}` } : {},
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return asRecord(answer.json);
}

/** `GET /workflows/executions/{id}`. */
export async function getExecution(
  api: HttpApi,
  id: string,
  signal?: AbortSignal,
): Promise<ExecutionRecord> {
  checkId(id);
  const answer = await api.call('GET', executionPath(id), { ...(signal ? { signal } : {}) });
  return asRecord(answer.json);
}

/** `POST /workflows/executions/{id}/cancel`: the canceled record (`CONFLICT` once ended). */
export async function cancelExecution(
  api: HttpApi,
  id: string,
  signal?: AbortSignal,
): Promise<ExecutionRecord> {
  checkId(id);
  const answer = await api.call('POST', `${executionPath(id)}/cancel`, {
    ...(signal ? { signal } : {}),
  });
  return asRecord(answer.json);
}

/** Options of {@link rerunExecution}. */
export interface RerunOptions {
  /**
   * Resume from this top-level step, or `failed` (the step the original failed at): the steps
   * before it are taken from the original's journal, not run again, and the new record carries
   * `resumed_from`. Without it the whole workflow runs again.
   */
  from?: string;
  signal?: AbortSignal;
}

/**
 * `POST /workflows/executions/{id}/rerun`: a new execution of the same workflow revision with the
 * same inputs, started by the caller (its `pending` record, or `waiting` for an approval); with
 * `from`, resumed from that step. `options` may be just an abort signal (as before `from`).
 */
export async function rerunExecution(
  api: HttpApi,
  id: string,
  options: RerunOptions | AbortSignal = {},
): Promise<ExecutionRecord> {
  checkId(id);
  const { from, signal } =
    options instanceof AbortSignal ? { signal: options, from: undefined } : options;
  const answer = await api.call('POST', `${executionPath(id)}/rerun`, {
    ...(from !== undefined ? { body: { from } } : {}),
    ...(signal ? { signal } : {}),
  });
  return asRecord(answer.json);
}

/** `GET /workflows/executions?status&workflow&limit&cursor`: one page of the caller's executions. */
export async function listExecutions(
  api: HttpApi,
  options: ListExecutionsOptions = {},
): Promise<ExecutionPage> {
  const query = queryString({
    status: options.status,
    workflow: options.workflow,
    trigger: options.trigger,
    from: options.from,
    to: options.to,
    limit: options.limit,
    cursor: options.cursor,
  });
  const answer = await api.call('GET', `/workflows/executions${query}`, {
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return toExecutionPage(answer.json);
}

/** The answer as a page of execution records; `BACKEND_ERROR` when it is not one. */
export function toExecutionPage(json: unknown): ExecutionPage {
  const page = json as Partial<ExecutionPage> | undefined;
  if (!page || !Array.isArray(page.executions)) {
    throw new BackendError('the server answered without a page of executions', {
      backend: 'cloud',
      original_error: 'no executions',
    });
  }
  return { executions: page.executions, next_cursor: page.next_cursor ?? null };
}

/**
 * Polls `GET /workflows/executions/{id}` until the execution ends (docs/runtime.md#execution-record) and gives the
 * ended record. Throws `TIMEOUT` after `timeoutMs`, `CANCELED` when `signal` fires.
 */
export async function waitForExecution(
  api: HttpApi,
  id: string,
  options: WaitOptions = {},
): Promise<ExecutionRecord> {
  const interval = options.intervalMs ?? 250;
  const timeout = options.timeoutMs;
  if (!Number.isFinite(interval) || interval < 1) {
    throw new ValidationError(`intervalMs must be a positive number, got ${interval}`, {
      field: 'intervalMs',
      constraint: 'range',
    });
  }
  if (timeout !== undefined && (!Number.isFinite(timeout) || timeout < 0)) {
    throw new ValidationError(`timeoutMs must be a number of milliseconds, got ${timeout}`, {
      field: 'timeoutMs',
      constraint: 'range',
    });
  }
  const started = Date.now();
  for (;;) {
    if (options.signal?.aborted) throw canceled(`stopped waiting for execution ${id}`);
    const record = await getExecution(api, id, options.signal);
    if (isFinishedStatus(record.status)) return record;
    const elapsed = Date.now() - started;
    if (timeout !== undefined && elapsed >= timeout) {
      throw new TimeoutError(
        `execution ${id} is still ${record.status} after ${timeout} ms; wait again or cancel it`,
        { timeout_ms: timeout, elapsed_ms: elapsed },
      );
    }
    const pause = timeout === undefined ? interval : Math.min(interval, timeout - elapsed);
    await sleep(pause, options.signal);
  }
}

/** Refuses an empty or oversized execution id before any request. */
export function checkId(id: string): void {
  if (typeof id !== 'string' || id.length === 0 || id.length > 256) {
    throw new ValidationError('executionId must be the execution_id the server gave', {
      field: 'executionId',
      constraint: 'format',
    });
  }
}

/** `?a=1&b=x` of the defined values (an empty string when none is). */
export function queryString(values: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined) query.set(name, String(value));
  }
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

function executionPath(id: string): string {
  return `/workflows/executions/${encodeURIComponent(id)}`;
}

/** The answer as an execution record; `BACKEND_ERROR` when it is not one. */
export function asRecord(json: unknown): ExecutionRecord {
  const record = json as Partial<ExecutionRecord> | undefined;
  if (!record || typeof record.execution_id !== 'string' || typeof record.status !== 'string') {
    throw new BackendError('the server answered without an execution record', {
      backend: 'cloud',
      original_error: 'no execution_id',
    });
  }
  return record as ExecutionRecord;
}

function canceled(message: string): CanceledError {
  return new CanceledError(message, { canceled_at: new Date().toISOString() });
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(timer);
      reject(canceled('stopped waiting'));
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
