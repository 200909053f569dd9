/**
 * Reads an HTTP response body up to `maxBytes`; a longer body is an error (an identity provider
 * answering with megabytes is broken or hostile, and must not fill memory).
 */
export async function readLimited(response: Response, maxBytes: number): Promise<Uint8Array> {
  const length = Number(response.headers.get('content-length') ?? NaN);
  if (length > maxBytes) {
    await response.body?.cancel();
    throw new Error(`the answer is larger than ${maxBytes} bytes`);
  }
  if (!response.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new Error(`the answer is larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** Options of the `fetch` that jose's remote key set uses. */
interface JoseFetchOptions {
  headers: Headers;
  method: 'GET';
  redirect: 'manual';
  signal: AbortSignal;
}

/**
 * A `fetch` for jose's remote key set whose answer bodies are cut at `maxBytes`: over it, the
 * fetch fails (and the token is refused with 503 until the key set can be read). `onOk` is told
 * of every 200 answer read whole.
 */
export function limitedFetch(maxBytes: number, onOk: () => void = () => {}) {
  return async (url: string, options: JoseFetchOptions): Promise<Response> => {
    const response = await fetch(url, options);
    const body = await readLimited(response, maxBytes);
    if (response.status === 200) onOk();
    return new Response(body, { status: response.status, headers: response.headers });
  };
}
