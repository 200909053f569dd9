import { BackendError } from '@weft/core';

/**
 * A `fetch` whose answers may hold at most `maxBytes` bytes: a longer body (by its
 * `Content-Length`, or as it streams in) fails with `BACKEND_ERROR`, which `onLimit` also gets
 * (the AI SDK wraps what `fetch` throws), so a 50 MB answer costs at most `maxBytes` of memory.
 */
export function limitedFetch(
  maxBytes: number,
  onLimit: (error: BackendError) => void,
): typeof fetch {
  const tooLarge = (seen: string): BackendError => {
    const error = new BackendError(
      `the model's answer is larger than the limit of ${maxBytes} bytes (${seen}); the agent step stops`,
      { backend: 'ai-sdk', original_error: `answer over ${maxBytes} bytes`, limit_bytes: maxBytes },
    );
    onLimit(error);
    return error;
  };
  return async (input, init) => {
    const response = await fetch(input, init);
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (declared > maxBytes) {
      await response.body?.cancel();
      throw tooLarge(`Content-Length ${declared}`);
    }
    if (!response.body) return response;
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
