/** HTTP methods the API client sends. */
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

/** Response headers by lowercase name (a header sent several times may be a list). */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** One request as a transport sends it: an absolute URL and the final headers. */
export interface TransportRequest {
  method: HttpMethod;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
}

/**
 * One answer of a transport. The caller reads `body` to its end or stops iterating it (which
 * releases the connection); aborting the request's signal also ends it.
 */
export interface TransportResponse {
  status: number;
  headers: ResponseHeaders;
  body: AsyncIterable<Uint8Array>;
}

/**
 * How the API client reaches the server: `fetch` in browsers ({@link FetchTransport}), a
 * keep-alive undici agent in the Node SDK. A request that gets no HTTP answer rejects with a
 * {@link TransportError} (or the signal's reason when it was aborted).
 */
export interface HttpTransport {
  send(request: TransportRequest): Promise<TransportResponse>;
  /** Closes connections kept open, if the transport keeps any. */
  close?(): Promise<void>;
}

/** Network error codes that mean the server cannot be reached at all (Node's and undici's). */
export const UNREACHABLE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/** A request that got no HTTP answer: `unreachable` when the server could not be reached. */
export class TransportError extends Error {
  override readonly name: string = 'TransportError';

  constructor(
    message: string,
    /** The network error code (`ECONNREFUSED`, `FETCH_FAILED`, ...), or `''` when unknown. */
    readonly code: string,
    /** Whether the server could not be reached (as opposed to a request that broke midway). */
    readonly unreachable: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
