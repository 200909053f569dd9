import { systemClock, UnavailableError, WeftError, type StreamEvent } from '@weft/core';
import { ApiError } from './api-error.js';
import { isFinishedStatus } from '@weft/core';
import type { HttpApi } from './http-api.js';
import { parseSse } from './sse.js';

/** An event (docs/protocol.md#stream-events) as the stream delivers it, with the id that resumes after it. */
export type ExecutionEvent = StreamEvent & {
  /** The event's id in its execution (`Last-Event-ID` resumes after it). */
  readonly id: string;
};

/** Options of {@link streamExecution}. */
export interface StreamOptions {
  /** Resume after this event id (as `Last-Event-ID`); default: from the first event. */
  lastEventId?: string;
  /** Stops the stream. */
  signal?: AbortSignal;
  /** Consecutive failed reconnects before giving up with `UNAVAILABLE`. Default 5. */
  maxReconnects?: number;
  /**
   * false: only the events stored so far, ending even while the execution runs (`?follow=false`).
   * Default true: until the execution ends.
   */
  follow?: boolean;
}

/**
 * The events (docs/protocol.md#stream-events) of an execution over server-sent events (`GET
 * /workflows/executions/{id}/events`), as an async iterator. A dropped connection is reopened
 * with `Last-Event-ID`, so no event is lost or repeated; the iterator ends once the server closes
 * the stream of a finished execution. Unknown ids and other owners' executions throw
 * `NOT_FOUND`.
 */
export async function* streamExecution(
  api: HttpApi,
  executionId: string,
  options: StreamOptions = {},
): AsyncGenerator<ExecutionEvent, void, undefined> {
  const follow = options.follow ?? true;
  const path = `/workflows/executions/${encodeURIComponent(executionId)}/events${follow ? '' : '?follow=false'}`;
  const maxReconnects = options.maxReconnects ?? 5;
  let lastId = options.lastEventId;
  let failures = 0;
  let retryMs = 1000;
  for (;;) {
    const controller = new AbortController();
    const stop = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', stop, { once: true });
    let clean = false;
    try {
      const response = await api.open(
        path,
        lastId !== undefined ? { 'last-event-id': lastId } : {},
        controller.signal,
      );
      failures = 0;
      for await (const message of parseSse(response.body, (ms) => {
        retryMs = ms;
      })) {
        if (message.id !== undefined) lastId = message.id;
        const event = JSON.parse(message.data) as StreamEvent;
        yield { ...event, id: message.id ?? '' };
        if (event.type === 'workflow.completed') return;
      }
      clean = true;
    } catch (error) {
      if (options.signal?.aborted) throw error;
      if (isFinal(error)) throw error;
      failures++;
      if (failures > maxReconnects) {
        throw new UnavailableError(
          `the event stream of execution ${executionId} dropped ${failures} times in a row`,
          { backend: 'cloud', suggestion: 'check that the server is up, then stream again' },
        );
      }
    } finally {
      options.signal?.removeEventListener('abort', stop);
      controller.abort();
    }
    if (clean && (!follow || (await finished(api, executionId, options.signal)))) return;
    await systemClock.sleep(
      Math.min(retryMs, 5000) * (failures > 0 ? failures : 0.1),
      options.signal,
    );
  }
}

/**
 * Whether a failure is the server's own answer (404, 401, ...: final) rather than a dropped or
 * broken connection, a proxy's error page or a server that is briefly unavailable (reconnect).
 */
function isFinal(error: unknown): boolean {
  if (!(error instanceof WeftError) || error.code === 'UNAVAILABLE') return false;
  if (error instanceof ApiError) return error.fromServer;
  // The transport's own failures are BACKEND_ERROR (see HttpApi).
  return error.code !== 'BACKEND_ERROR';
}

async function finished(api: HttpApi, id: string, signal?: AbortSignal): Promise<boolean> {
  const answer = await api.call('GET', `/workflows/executions/${encodeURIComponent(id)}`, {
    ...(signal ? { signal } : {}),
  });
  return isFinishedStatus((answer.json as { status?: string }).status ?? '');
}
