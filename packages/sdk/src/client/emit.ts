import { BackendError, ValidationError, type EventAccepted } from '@weft/core';
import type { HttpApi } from '../http-client/http-api.js';

/** Longest topic a workflow's event trigger (and `POST /events/{topic}`) accepts. */
const MAX_TOPIC = 512;

/** Throws `VALIDATION` unless `topic` is a topic an event trigger can listen to. */
export function checkTopic(topic: unknown): asserts topic is string {
  if (typeof topic !== 'string' || topic.length === 0 || topic.length > MAX_TOPIC) {
    throw new ValidationError(
      `topic must be the non-empty topic an event trigger listens to (at most ${MAX_TOPIC} characters), got ${describe(topic)}`,
      { field: 'topic', constraint: 'format' },
    );
  }
}

/**
 * Emits a `custom` event through the server (`POST /events/{topic}` with the API key): every
 * deployed workflow listening to `topic` whose filter keeps `event` starts. Resolves with the
 * server's answer: the executions it started (none when no workflow listens or matches).
 */
export async function emitEvent(
  api: HttpApi,
  topic: string,
  event: unknown,
): Promise<EventAccepted> {
  checkTopic(topic);
  if (event === undefined) {
    throw new ValidationError('event must be a JSON value (the trigger.event of the workflows)', {
      field: 'event',
      constraint: 'required',
    });
  }
  const answer = await api.call('POST', `/events/${encodeURIComponent(topic)}`, { body: event });
  const body = answer.json as Partial<EventAccepted> | undefined;
  if (body?.status !== 'accepted' || !Array.isArray(body.started)) {
    throw new BackendError('the server answered the event without the executions it started', {
      backend: 'cloud',
      original_error: `HTTP ${answer.status}`,
    });
  }
  return body as EventAccepted;
}

function describe(value: unknown): string {
  if (typeof value === 'string')
    return value.length === 0 ? 'an empty string' : `${value.length} characters`;
  return typeof value;
}
