import { systemClock, UnavailableError, WeftError, type StreamEvent } from '@weft/core';
import type { CloudApi } from './cloud-api.js';

/** A §2.11 event as the stream delivers it, with the id that resumes after it. */
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
}

/** One parsed server-sent event. */
interface SseMessage {
  id: string | undefined;
  data: string;
}

const FINISHED = new Set(['completed', 'failed', 'canceled']);

/**
 * The §2.11 events of an execution over server-sent events (`GET
 * /workflows/executions/{id}/events`), as an async iterator. A dropped connection is reopened
 * with `Last-Event-ID`, so no event is lost or repeated; the iterator ends once the server closes
 * the stream of a finished execution. Unknown ids and other owners' executions throw
 * `NOT_FOUND`.
 */
export async function* streamExecution(
  api: CloudApi,
  executionId: string,
  options: StreamOptions = {},
): AsyncGenerator<ExecutionEvent, void, undefined> {
  const path = `/workflows/executions/${encodeURIComponent(executionId)}/events`;
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
      for await (const message of parseSse(response.body as AsyncIterable<Buffer>, (ms) => {
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
      // The server's own answers (404, 401, ...) are final; dropped connections are retried.
      if (error instanceof WeftError && error.code !== 'UNAVAILABLE' && !isDrop(error)) throw error;
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
    if (clean && (await finished(api, executionId, options.signal))) return;
    await systemClock.sleep(
      Math.min(retryMs, 5000) * (failures > 0 ? failures : 0.1),
      options.signal,
    );
  }
}

/** Whether a failure is a dropped connection (to reconnect) rather than the server's answer. */
function isDrop(error: WeftError): boolean {
  return error.code === 'BACKEND_ERROR' && error.details['backend'] === 'cloud';
}

async function finished(api: CloudApi, id: string, signal?: AbortSignal): Promise<boolean> {
  const answer = await api.call('GET', `/workflows/executions/${encodeURIComponent(id)}`, {
    ...(signal ? { signal } : {}),
  });
  return FINISHED.has((answer.json as { status?: string }).status ?? '');
}

/**
 * Parses a `text/event-stream` body: `id:` and `data:` fields, events ended by a blank line,
 * comments ignored, `retry:` reported to `onRetry`.
 */
export async function* parseSse(
  body: AsyncIterable<Buffer>,
  onRetry: (ms: number) => void = () => {},
): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = '';
  let id: string | undefined;
  let data: string[] = [];
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.search(/\r\n|\n|\r/)) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
      if (line === '') {
        if (data.length > 0) yield { id, data: data.join('\n') };
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'id') id = value;
      else if (field === 'data') data.push(value);
      else if (field === 'retry' && /^\d+$/.test(value)) onRetry(Number(value));
    }
  }
}
