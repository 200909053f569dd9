import {
  HTTP_STATUS,
  isErrorCode,
  systemClock,
  UnavailableError,
  type StreamEvent,
} from '@weft/core';
import { loadUndici } from './undici-transport.js';
import { ApiError } from '../http-client/api-error.js';
import type { ExecutionEvent, StreamOptions } from '../http-client/event-stream.js';
import type { HttpApi } from '../http-client/http-api.js';

/** Transport of an event stream: server-sent events, or WebSocket. */
export type StreamProtocol = 'sse' | 'websocket';

/** Options of `Weft.stream` for an execution on the server. */
export interface ServerStreamOptions extends StreamOptions {
  /**
   * How the events travel: `sse` or `websocket`. Default: the workflow's
   * `execution.streaming.protocol` (the record's `stream_protocol`; `sse` when it sets none),
   * read with one `GET` of the execution first.
   */
  protocol?: StreamProtocol;
}

/** One thing the socket said: a message, or its close. */
type Arrival = { data: string } | { closed: number; reason: string };

/**
 * The events of an execution over a WebSocket (the upgrade of `GET
 * /workflows/executions/{id}/events`, docs/runtime.md#events), as an async iterator. A connection
 * that drops is reopened after the last event received (`?last_event_id=`), like the SSE stream;
 * the iterator ends when the server closes with 1000. A close with 4000 + an HTTP status throws
 * that status's error (4404: `NOT_FOUND`).
 */
export async function* streamOverWebSocket(
  api: HttpApi,
  executionId: string,
  options: StreamOptions = {},
): AsyncGenerator<ExecutionEvent, void, undefined> {
  const follow = options.follow ?? true;
  const maxReconnects = options.maxReconnects ?? 5;
  let lastId = options.lastEventId;
  let failures = 0;
  for (;;) {
    options.signal?.throwIfAborted();
    const query = new URLSearchParams();
    if (!follow) query.set('follow', 'false');
    if (lastId !== undefined) query.set('last_event_id', lastId);
    const path = `/workflows/executions/${encodeURIComponent(executionId)}/events`;
    const url = `${api.baseUrl.replace(/^http/, 'ws')}${path}${query.size > 0 ? `?${query}` : ''}`;
    const { WebSocket } = await loadUndici();
    const socket = new WebSocket(url, { headers: api.authorization() });
    const queue: Arrival[] = [];
    let wake: (() => void) | undefined;
    const push = (arrival: Arrival) => {
      queue.push(arrival);
      wake?.();
    };
    socket.addEventListener('message', (m) => push({ data: String(m.data) }));
    socket.addEventListener('close', (c) => push({ closed: c.code, reason: c.reason }));
    const stop = () => socket.close(1000);
    options.signal?.addEventListener('abort', stop, { once: true });
    let closed: { closed: number; reason: string } | undefined;
    try {
      while (!closed) {
        if (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        const arrival = queue.shift()!;
        if ('closed' in arrival) {
          closed = arrival;
          break;
        }
        failures = 0;
        const event = JSON.parse(arrival.data) as StreamEvent & { id: string };
        lastId = event.id;
        yield event;
      }
    } finally {
      options.signal?.removeEventListener('abort', stop);
      if (socket.readyState === socket.OPEN) socket.close(1000);
    }
    options.signal?.throwIfAborted();
    if (closed.closed === 1000) return;
    if (closed.closed >= 4000 && closed.closed < 5000) throw closeError(closed, executionId);
    if (++failures > maxReconnects) {
      throw new UnavailableError(
        `the event socket of execution ${executionId} dropped ${failures} times in a row`,
        { backend: 'cloud', suggestion: 'check that the server is up, then stream again' },
      );
    }
    await systemClock.sleep(Math.min(1000 * failures, 5000), options.signal);
  }
}

/** The error of a close with 4000 + an HTTP status (the server's own refusal). */
function closeError(close: { closed: number; reason: string }, id: string): ApiError {
  const status = close.closed - 4000;
  const code = Object.entries(HTTP_STATUS).find(
    ([c, s]) => s === status && c !== 'CANCELED' && isErrorCode(c),
  )?.[0];
  const message = close.reason || `the event socket of execution ${id} closed with ${close.closed}`;
  if (code === 'NOT_FOUND' || code === 'UNAUTHORIZED' || code === 'FORBIDDEN')
    return new ApiError(code, message, {}, { status });
  return new ApiError(
    'BACKEND_ERROR',
    message,
    { backend: 'cloud', original_error: `WebSocket close ${close.closed}` },
    { status },
  );
}
