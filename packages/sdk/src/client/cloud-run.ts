import {
  CanceledError,
  isFinishedStatus,
  ValidationError,
  type ExecutionRecord,
  type StreamEvent,
} from '@weft/core';
import type { RunResult, WorkflowDefinition } from '@weft/engine';
import type { ExecuteOptions } from './execute-options.js';
import { streamExecution } from '../http-client/event-stream.js';
import { getExecution, waitForExecution, type StartOptions } from '../http-client/executions.js';
import type { HttpApi } from '../http-client/http-api.js';
import { startExecution, toRunResult } from './cloud-executions.js';

/** Longest `Prefer: wait` the server honours, in seconds. */
const MAX_PREFER_WAIT = 60;

/** What a cloud run takes beyond the workflow and inputs. */
export interface CloudRunOptions {
  onEvent?: (event: StreamEvent) => void;
  /** Cancels the execution on the server. */
  signal?: AbortSignal;
  /** Receives the pending record once the server accepted the run (its `execution_id`). */
  onStarted?: (record: ExecutionRecord) => void;
  idempotencyKey?: string;
  callbackUrl?: string;
}

/**
 * The {@link CloudRunOptions} of `execute` in cloud mode: without a listener the run waits with
 * `Prefer: wait`; with one it follows the events, each logged by `log` first unless
 * `logSteps: false`.
 */
export function cloudRunOptions(
  options: ExecuteOptions,
  log: (event: StreamEvent) => void,
): CloudRunOptions {
  return {
    ...(options.onEvent
      ? {
          onEvent: (event: StreamEvent) => {
            if (options.logSteps !== false) log(event);
            options.onEvent!(event);
          },
        }
      : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onStarted ? { onStarted: options.onStarted } : {}),
    ...(options.idempotencyKey !== undefined ? { idempotencyKey: options.idempotencyKey } : {}),
    ...(options.callbackUrl !== undefined ? { callbackUrl: options.callbackUrl } : {}),
  };
}

/**
 * Runs a whole workflow on the server (`cloud` mode) and gives the result a local run gives:
 * started with `Prefer: wait`, then polled; with `onEvent`, started asynchronously and followed
 * over the event stream; with `signal` or `onStarted`, started asynchronously and polled. An aborted `signal` cancels the execution on the server, and the result
 * is the canceled record.
 */
export async function runInCloud(
  api: HttpApi,
  workflow: WorkflowDefinition,
  library: Iterable<WorkflowDefinition>,
  inputs: Record<string, unknown>,
  options: CloudRunOptions,
): Promise<RunResult> {
  const start: StartOptions = {
    ...(options.idempotencyKey !== undefined ? { idempotencyKey: options.idempotencyKey } : {}),
    ...(options.callbackUrl !== undefined ? { callbackUrl: options.callbackUrl } : {}),
    // `Prefer: wait` holds the answer, and with it the id a cancel needs.
    ...(options.onEvent || options.signal || options.onStarted
      ? {}
      : { waitSeconds: MAX_PREFER_WAIT }),
  };
  if (options.signal?.aborted) throw canceledBeforeStart();
  let record = await startExecution(api, workflow, library, inputs, start);
  options.onStarted?.(record);
  if (isFinishedStatus(record.status) && !options.onEvent) return toRunResult(record);
  const id = record.execution_id;
  const controller = new AbortController();
  const onAbort = () => {
    controller.abort();
    void api.call('POST', `/workflows/executions/${encodeURIComponent(id)}/cancel`).catch(() => {
      // ended meanwhile (409) or gone: the final record says what happened
    });
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    if (options.onEvent) {
      try {
        for await (const event of streamExecution(api, id, { signal: controller.signal })) {
          const { id: _seq, ...plain } = event;
          options.onEvent(plain);
        }
      } catch (error) {
        if (!controller.signal.aborted) throw error;
      }
      record = await getExecution(api, id);
    }
    if (!isFinishedStatus(record.status)) record = await waitForExecution(api, id);
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
  return toRunResult(record);
}

/** Checks the per-run options a cloud run cannot honour. */
export function checkCloudRunOptions(options: {
  dryRun?: boolean;
  trigger?: { payload?: unknown; event?: unknown };
  executionId?: string;
  execution?: unknown;
}): void {
  const refuse = (field: string, why: string) => {
    throw new ValidationError(`${field} is not available in cloud mode: ${why}`, {
      field,
      constraint: 'mode',
    });
  };
  if (options.dryRun) refuse('dryRun', 'dry runs answer actions from mocks locally');
  const trigger = options.trigger;
  if (trigger && (trigger.payload !== undefined || trigger.event !== undefined))
    refuse('trigger', 'the server starts API runs without trigger data');
  if (options.executionId !== undefined)
    refuse('executionId', 'the server chooses execution ids; use idempotencyKey');
  if (options.execution !== undefined)
    refuse('execution', 'per-step placement belongs to hybrid mode');
}

function canceledBeforeStart(): CanceledError {
  return new CanceledError('the signal was aborted before the execution started', {
    canceled_at: new Date().toISOString(),
  });
}
