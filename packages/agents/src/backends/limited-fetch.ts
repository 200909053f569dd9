import { BackendError } from '@weft/core';
import { tapes } from '../run/tape.js';

const LIMIT = Symbol('response-limit');

/** The limit error of {@link limitedFetch} somewhere in `error`'s `cause` chain, if any. */
export function findLimitError(error: unknown): BackendError | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    if (LIMIT in e) return e as unknown as BackendError;
  }
  return undefined;
}

/**
 * A `fetch` whose answers may hold at most `maxBytes` bytes: a longer body (by its
 * `Content-Length`, or as it streams in when it has none) fails with `BACKEND_ERROR`
 * (`details.limit_bytes`, `details.backend`), so a 50 MB answer costs at most `maxBytes` of
 * memory. The model clients (the AI SDK, the OpenAI and Anthropic SDKs under LangChain) wrap what
 * `fetch` throws: {@link findLimitError} finds it again in the `cause` chain.
 */
export function limitedFetch(maxBytes: number, backend = 'ai-sdk'): typeof fetch {
  const tooLarge = (seen: string): BackendError => {
    const error = new BackendError(
      `the model's answer is larger than the limit of ${maxBytes} bytes (${seen}); the agent step stops`,
      { backend, original_error: `answer over ${maxBytes} bytes`, limit_bytes: maxBytes },
    );
    (error as unknown as Record<symbol, boolean>)[LIMIT] = true;
    return error;
  };
  const limited: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (declared > maxBytes) {
      await response.body?.cancel();
      throw tooLarge(`Content-Length ${declared}`);
    }
    // A declared length within the limit is held to by fetch itself: no stream to count.
    if (!response.body || Number.isFinite(declared)) return response;
    return new Response(counted(response.body, maxBytes, tooLarge), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
  // An agent step that may wait for a tool call's approval records its model exchanges, and
  // replays them when it resumes (docs/agents.md#tool-approvals): see `Tape`.
  return (input, init) => {
    const tape = tapes.getStore();
    return tape ? tape.fetch(input, init, limited) : limited(input, init);
  };
}

/**
 * `body` as a stream that fails with `tooLarge` (and cancels `body`) once more than `maxBytes`
 * bytes came through. Pulls the chunks straight from `body`'s reader: a `TransformStream` (with
 * `pipeThrough`'s machinery) cost about three times the CPU per answer.
 */
function counted(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  tooLarge: (seen: string) => BackendError,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let seen = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        seen += value.byteLength;
        if (seen <= maxBytes) return controller.enqueue(value);
        controller.error(tooLarge(`${seen} bytes read`));
        await reader.cancel().catch(() => {});
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
