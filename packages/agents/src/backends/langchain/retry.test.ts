import { describe, expect, it } from 'vitest';
import { BackendError } from '@weft/core';
import { limitedFetch } from '../limited-fetch.js';
import { withRetry } from './retry.js';

/** An error as the OpenAI and Anthropic SDKs throw them: status and headers. */
function apiError(status: number, headers: Record<string, string> = {}) {
  return Object.assign(new Error(`${status} scripted`), { status, headers: new Headers(headers) });
}

function failing(errors: unknown[]) {
  let calls = 0;
  const call = async () => {
    const error = errors[calls++];
    if (error !== undefined) throw error;
    return 'answer';
  };
  return { call, calls: () => calls };
}

const never = new AbortController().signal;

describe('withRetry (the langchain backend)', () => {
  it('retries 429, 5xx and lost connections, then answers', async () => {
    const connection = Object.assign(new Error('Connection error.'), {
      name: 'APIConnectionError',
    });
    const f = failing([apiError(429), apiError(503), connection]);
    await expect(withRetry(f.call, { maxRetries: 3, initialDelayMs: 0 }, never)).resolves.toBe(
      'answer',
    );
    expect(f.calls()).toBe(4);
  });

  it('gives up after maxRetries with the last error', async () => {
    const f = failing([apiError(500), apiError(502), apiError(504)]);
    await expect(
      withRetry(f.call, { maxRetries: 1, initialDelayMs: 0 }, never),
    ).rejects.toMatchObject({ status: 502 });
    expect(f.calls()).toBe(2);
  });

  it('does not retry a refused request, an answer over the size limit or an aborted call', async () => {
    const badRequest = failing([apiError(400)]);
    await expect(
      withRetry(badRequest.call, { maxRetries: 3, initialDelayMs: 0 }, never),
    ).rejects.toMatchObject({ status: 400 });
    expect(badRequest.calls()).toBe(1);

    // The size limit, as the OpenAI SDK wraps what fetch threw.
    const tooLarge = await limitedFetch(10)('data:text/plain,' + 'a'.repeat(100))
      .then((r) => r.text())
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(tooLarge).toBeInstanceOf(BackendError);
    const limit = failing([new Error('Connection error.', { cause: tooLarge })]);
    await expect(
      withRetry(limit.call, { maxRetries: 3, initialDelayMs: 0 }, never),
    ).rejects.toThrow();
    expect(limit.calls()).toBe(1);

    const controller = new AbortController();
    controller.abort(new BackendError('stopped', { backend: 'langchain', original_error: 'x' }));
    const aborted = failing([apiError(503)]);
    await expect(
      withRetry(aborted.call, { maxRetries: 3, initialDelayMs: 0 }, controller.signal),
    ).rejects.toMatchObject({ status: 503 });
    expect(aborted.calls()).toBe(1);
  });

  it('stops waiting for the next attempt when the step is aborted', async () => {
    const controller = new AbortController();
    const f = failing([apiError(503, { 'retry-after': '30' })]);
    const pending = withRetry(f.call, { maxRetries: 3, initialDelayMs: 0 }, controller.signal);
    await Promise.resolve();
    controller.abort(new Error('canceled'));
    await expect(pending).rejects.toThrow('canceled');
    expect(f.calls()).toBe(1);
  });
});
