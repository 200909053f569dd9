import {
  BackendError,
  CanceledError,
  isFinishedStatus,
  TimeoutError,
  ValidationError,
  type ErrorObject,
  type ExecutionRecord,
} from '@weft/core';
import {
  calledWorkflows,
  pickWorkflow,
  type RunResult,
  type StepRecord,
  type WorkflowDefinition,
} from '@weft/engine';
import type { CloudApi } from './cloud-api.js';

/** Options of a cloud execution start. */
export interface StartOptions {
  /** The same key from the same API key returns the same execution. */
  idempotencyKey?: string;
  /** Receives the signed §2.8 callback when the execution ends (a public http(s) URL). */
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

/**
 * Starts `workflow` on the server (`POST /workflows/executions`), sending it inline as a file
 * with the workflows its subworkflow steps call, picked from `library` (every loaded version) as
 * a local run picks them, and gives the §2.8 record back: `pending`, or the ended record when
 * `waitSeconds` is set and it ended in time.
 */
export async function startExecution(
  api: CloudApi,
  workflow: WorkflowDefinition,
  library: Iterable<WorkflowDefinition>,
  inputs: Record<string, unknown>,
  options: StartOptions = {},
): Promise<ExecutionRecord> {
  const others = calledOnce(workflow, [...library]);
  const wait = options.waitSeconds;
  const answer = await api.call('POST', '/workflows/executions', {
    body: {
      workflow: { workflows: [workflow, ...others] },
      workflow_name: workflow.name,
      inputs,
      ...(options.callbackUrl !== undefined ? { callback_url: options.callbackUrl } : {}),
      ...(options.idempotencyKey !== undefined ? { idempotency_key: options.idempotencyKey } : {}),
    },
    headers: wait !== undefined && wait > 0 ? { prefer: `wait=${Math.ceil(wait)}` } : {},
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return asRecord(answer.json);
}

/**
 * The workflows a run of `workflow` calls, each in the version its steps' pins pick. A file holds
 * one version of each name, so steps that pick two versions of one workflow are refused here.
 */
function calledOnce(
  workflow: WorkflowDefinition,
  library: WorkflowDefinition[],
): WorkflowDefinition[] {
  const picked = new Map<string, { called: WorkflowDefinition; by: string }>([
    [workflow.name, { called: workflow, by: 'the workflow run' }],
  ]);
  for (const call of calledWorkflows(workflow, (name, range) =>
    pickWorkflow(library, name, range),
  )) {
    // A call nothing satisfies fails at its step, on the server as it would here.
    if (!call.called) continue;
    const by = `step "${call.step}" of "${call.caller}"${call.version !== undefined ? ` (version "${call.version}")` : ''}`;
    const before = picked.get(call.name);
    if (!before) picked.set(call.name, { called: call.called, by });
    else if (before.called !== call.called) {
      throw new ValidationError(
        `cloud mode sends one version of each workflow, but workflow "${call.name}" is called as ${before.called.version} by ${before.by} and as ${call.called.version} by ${by}`,
        { field: 'version', constraint: 'one_version' },
      );
    }
  }
  return [...picked.values()].map((p) => p.called).filter((w) => w !== workflow);
}

/** `GET /workflows/executions/{id}`. */
export async function getExecution(
  api: CloudApi,
  id: string,
  signal?: AbortSignal,
): Promise<ExecutionRecord> {
  checkId(id);
  const answer = await api.call('GET', `/workflows/executions/${encodeURIComponent(id)}`, {
    ...(signal ? { signal } : {}),
  });
  return asRecord(answer.json);
}

/**
 * Polls `GET /workflows/executions/{id}` until the execution ends (SPEC.md §4.4) and gives the
 * ended record. Throws `TIMEOUT` after `timeoutMs`, `CANCELED` when `signal` fires.
 */
export async function waitForExecution(
  api: CloudApi,
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
    if (options.signal?.aborted) throw canceled(id);
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

/** An ended record as the {@link RunResult} a local run gives. */
export function toRunResult(record: ExecutionRecord): RunResult {
  const status = record.status;
  if (!isFinishedStatus(status)) {
    throw new BackendError(`execution ${record.execution_id} has not ended (${status})`, {
      backend: 'cloud',
      original_error: `status ${status}`,
    });
  }
  const started = record.started_at ?? record.created_at;
  const finished = record.finished_at ?? started;
  return {
    execution_id: record.execution_id,
    workflow: record.workflow,
    status,
    outputs: record.result?.outputs ?? {},
    steps: (record.result?.steps ?? {}) as Record<string, StepRecord>,
    ...(record.error ? { error: record.error as ErrorObject } : {}),
    started_at: started,
    finished_at: finished,
    duration_ms: Math.max(0, Date.parse(finished) - Date.parse(started)),
  };
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

function asRecord(json: unknown): ExecutionRecord {
  const record = json as Partial<ExecutionRecord> | undefined;
  if (!record || typeof record.execution_id !== 'string' || typeof record.status !== 'string') {
    throw new BackendError('the server answered without an execution record', {
      backend: 'cloud',
      original_error: 'no execution_id',
    });
  }
  return record as ExecutionRecord;
}

function canceled(id: string): CanceledError {
  return new CanceledError(`stopped waiting for execution ${id}`, {
    canceled_at: new Date().toISOString(),
  });
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
      reject(new CanceledError('stopped waiting', { canceled_at: new Date().toISOString() }));
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
