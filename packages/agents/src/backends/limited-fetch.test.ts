import { BackendError } from '@weft/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModelServer } from '../testing/scripted-server.js';
import { findLimitError, limitedFetch } from './limited-fetch.js';

/** The scripted server sends `bytes` of filler chunked (no Content-Length): the counted path. */
let server: ScriptedModelServer;
let size = 0;

beforeAll(async () => {
  server = await new ScriptedModelServer(() => ({ bytes: size })).start();
});
afterAll(() => server.close());

const post = (limit: number, bytes: number) => {
  size = bytes;
  return limitedFetch(limit, 'langchain')(`${server.url}/chat/completions`, {
    method: 'POST',
    body: '{}',
  });
};

describe('limitedFetch', () => {
  it('passes a chunked answer of exactly the limit, whole', async () => {
    const response = await post(200_000, 200_000);
    expect(response.headers.get('content-length')).toBeNull();
    expect((await response.arrayBuffer()).byteLength).toBe(200_000);
  });

  it('fails a chunked answer one byte over the limit with BACKEND_ERROR and limit_bytes', async () => {
    const response = await post(200_000, 200_001);
    const error = await response.text().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({
      code: 'BACKEND_ERROR',
      details: { backend: 'langchain', limit_bytes: 200_000 },
    });
    expect(findLimitError(new Error('wrapped', { cause: error }))).toBe(error);
  });

  it('fails a streamed read past the limit, and the connection still serves the next call', async () => {
    const response = await post(100_000, 5_000_000);
    const reader = response.body!.getReader();
    let read = 0;
    const error = await (async () => {
      for (;;) read += (await reader.read()).value?.byteLength ?? 0;
    })().catch((e: unknown) => e);
    expect(findLimitError(error)).toBe(error);
    expect(read).toBeLessThanOrEqual(100_000);
    expect((await (await post(100, 10)).text()).length).toBe(10);
  });

  it('refuses a declared Content-Length over the limit before reading', async () => {
    const declared = await new ScriptedModelServer(() => ({
      body: 'a'.repeat(100),
      headers: { 'content-length': '100' },
    })).start();
    try {
      const error = await limitedFetch(10)(`${declared.url}/chat/completions`, {
        method: 'POST',
        body: '{}',
      }).catch((e: unknown) => e);
      expect(findLimitError(error)).toMatchObject({ details: { limit_bytes: 10 } });
    } finally {
      await declared.close();
    }
  });
});
