import { BackendError } from '@weft/core';

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
  return async (input, init) => {
    const response = await fetch(input, init);
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (declared > maxBytes) {
      await response.body?.cancel();
      throw tooLarge(`Content-Length ${declared}`);
    }
    // A declared length within the limit is held to by fetch itself: no stream to count.
    if (!response.body || Number.isFinite(declared)) return response;
    let seen = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxBytes) controller.error(tooLarge(`${seen} bytes read`));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
