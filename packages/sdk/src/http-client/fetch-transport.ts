import {
  TransportError,
  UNREACHABLE_CODES,
  type HttpTransport,
  type ResponseHeaders,
  type TransportRequest,
  type TransportResponse,
} from './transport.js';

/** Whether `fetch` sends cookies (the `credentials` of `RequestInit`). */
export type Credentials = 'omit' | 'same-origin' | 'include';

/** The part of `fetch` the client uses (the global one by default; inject one in tests). */
export type FetchFunction = (url: string, init: RequestInit) => Promise<Response>;

/** Options of {@link FetchTransport}. */
export interface FetchTransportOptions {
  /** Default: `globalThis.fetch`, looked up at each request. */
  fetch?: FetchFunction;
  /**
   * Whether the browser sends cookies: `same-origin` (the fetch default) for a console served
   * by the server itself, `include` for one on another origin, `omit` for none.
   */
  credentials?: Credentials;
}

/**
 * The browser's transport: `fetch`, with response bodies read through a stream reader so that
 * server-sent events arrive as they are written. Runs wherever `fetch` does (browsers, Node 20,
 * workers); imports nothing of Node.
 */
export class FetchTransport implements HttpTransport {
  private readonly fetch: FetchFunction;
  private readonly credentials: Credentials | undefined;

  constructor(options: FetchTransportOptions = {}) {
    this.fetch = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
    this.credentials = options.credentials;
  }

  async send(request: TransportRequest): Promise<TransportResponse> {
    let response: Response;
    try {
      response = await this.fetch(request.url, {
        method: request.method,
        headers: request.headers,
        ...(request.body !== undefined
          ? { body: request.body as NonNullable<RequestInit['body']> }
          : {}),
        ...(request.signal ? { signal: request.signal } : {}),
        ...(this.credentials ? { credentials: this.credentials } : {}),
      });
    } catch (error) {
      if (request.signal?.aborted) throw error;
      throw fetchFailure(error);
    }
    const headers: ResponseHeaders = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    return { status: response.status, headers, body: chunksOf(response.body) };
  }
}

/**
 * A failed `fetch` as a {@link TransportError}. Browsers say only `TypeError: Failed to fetch`
 * (no server, refused, CORS): unreachable. Node's fetch names the cause's code.
 */
function fetchFailure(error: unknown): TransportError {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : '';
  const message = typeof cause?.message === 'string' ? cause.message : messageOf(error);
  return new TransportError(
    message,
    code || 'FETCH_FAILED',
    code ? UNREACHABLE_CODES.has(code) : true,
    {
      cause: error,
    },
  );
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The chunks of a response body through its reader (async iteration of a `ReadableStream` is
 * not in every browser). Stopping early cancels the stream, which releases the connection.
 */
export async function* chunksOf(
  stream: ReadableStream<Uint8Array> | null,
): AsyncGenerator<Uint8Array, void, undefined> {
  if (!stream) return;
  const reader = stream.getReader();
  let ended = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        ended = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!ended) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
