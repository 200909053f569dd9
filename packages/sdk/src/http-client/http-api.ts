import { BackendError, CanceledError, UnavailableError, WeftError } from '@weft/core';
import { ApiError, type ErrorAnswer } from './api-error.js';
import { FetchTransport } from './fetch-transport.js';
import { checkServerUrl } from './server-url.js';
import {
  TransportError,
  UNREACHABLE_CODES,
  type HttpMethod,
  type HttpTransport,
  type ResponseHeaders,
  type TransportResponse,
} from './transport.js';

/** Options of {@link HttpApi}. */
export interface HttpApiOptions {
  /** Base URL of the server (`weft server`), e.g. `https://weft.example.com`. */
  baseUrl: string;
  /**
   * The API key sent as `Authorization: Bearer <key>`, or a function asked at each request (for
   * a token that changes). Without one no `Authorization` is sent (a console may rely on its
   * session cookie).
   */
  apiKey?: string | (() => string | undefined);
  /** Largest answer accepted, in bytes. Default 10 MiB. */
  maxResponseBytes?: number;
  /** How requests travel. Default: `fetch` ({@link FetchTransport}). */
  transport?: HttpTransport;
  /** What an `UNAVAILABLE` error suggests when the server cannot be reached. */
  unreachableHint?: string;
}

/** What a request sends: a JSON `body`, or `raw` bytes of a content type. */
export interface ApiRequest {
  body?: unknown;
  raw?: { data: string | Uint8Array; contentType: string };
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** One answer of the server: status, headers and the body parsed as JSON. */
export interface ApiAnswer {
  status: number;
  headers: ResponseHeaders;
  json: unknown;
}

/**
 * The HTTP client of a weft server's public API, shared by the browser entry
 * (`@weft/sdk/client`) and the Node SDK's `cloud`/`hybrid` modes: JSON requests with the bearer
 * key; an error answer comes back as an {@link ApiError} of its code, a server that cannot be
 * reached as `UNAVAILABLE`, a request that broke midway as `BACKEND_ERROR`.
 */
export class HttpApi {
  /** The server's base URL without a trailing slash. */
  readonly baseUrl: string;
  private readonly transport: HttpTransport;
  private readonly apiKey: HttpApiOptions['apiKey'];
  private readonly maxBytes: number;
  private readonly unreachableHint: string;

  constructor(options: HttpApiOptions) {
    this.baseUrl = checkServerUrl(options.baseUrl, 'baseUrl', {
      role: 'server',
      example: 'https://weft.example.com',
    })
      .toString()
      .replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.transport = options.transport ?? new FetchTransport();
    this.maxBytes = options.maxResponseBytes ?? 10 * 1024 * 1024;
    this.unreachableHint =
      options.unreachableHint ?? `check that weft server runs at ${this.baseUrl}`;
  }

  /** Sends `method path` with an optional JSON body; resolves to a 2xx answer, else throws. */
  async call(method: HttpMethod, path: string, options: ApiRequest = {}): Promise<ApiAnswer> {
    const answer = await this.send(method, path, options);
    if (answer.status >= 200 && answer.status < 300) return answer;
    throw this.errorOf(answer, `${method} ${path}`);
  }

  /** Like {@link call}, but gives any answer back (for callers that branch on 404). */
  async send(method: HttpMethod, path: string, options: ApiRequest = {}): Promise<ApiAnswer> {
    let status: number;
    let headers: ResponseHeaders;
    let text: string;
    try {
      const response = await this.transport.send({
        method,
        url: `${this.baseUrl}${path}`,
        headers: {
          ...this.headers(options.headers, options.body !== undefined),
          ...(options.raw ? { 'content-type': options.raw.contentType } : {}),
        },
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
        ...(options.raw ? { body: options.raw.data } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      status = response.status;
      headers = response.headers;
      text = await this.read(response.body);
    } catch (error) {
      throw this.failure(error, `${method} ${path}`, options.signal);
    }
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      // An error page (a proxy's 502, say) still has its status: `errorOf` names it.
      if (status < 200 || status >= 300) return { status, headers, json: undefined };
      throw new BackendError(`${method} ${path}: the server answered ${status} with non-JSON`, {
        backend: 'cloud',
        original_error: `HTTP ${status}`,
      });
    }
    return { status, headers, json };
  }

  /**
   * Opens a streaming GET (server-sent events): the 200 answer, whose body the caller reads and
   * stops reading (or aborts `signal`) when done; any other answer throws its error.
   */
  async open(
    path: string,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<TransportResponse> {
    try {
      const response = await this.transport.send({
        method: 'GET',
        url: `${this.baseUrl}${path}`,
        headers: { ...this.headers(headers, false), accept: 'text/event-stream' },
        signal,
      });
      if (response.status === 200) return response;
      const text = await this.read(response.body);
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      throw this.errorOf(
        { status: response.status, headers: response.headers, json },
        `GET ${path}`,
      );
    } catch (error) {
      throw this.failure(error, `GET ${path}`, signal);
    }
  }

  /** The error an answer that is not 2xx stands for. */
  errorOf(answer: ErrorAnswer, what: string): ApiError {
    return ApiError.fromAnswer(answer, what);
  }

  /** The `Authorization` header of the key (none without one), for connections made elsewhere (WebSocket). */
  authorization(): Record<string, string> {
    const key = typeof this.apiKey === 'function' ? this.apiKey() : this.apiKey;
    return key !== undefined && key !== '' ? { authorization: `Bearer ${key}` } : {};
  }

  /** Closes the connections kept open to the server. */
  async close(): Promise<void> {
    await this.transport.close?.();
  }

  private headers(extra: Record<string, string> | undefined, json: boolean) {
    const key = typeof this.apiKey === 'function' ? this.apiKey() : this.apiKey;
    return {
      accept: 'application/json',
      ...(key !== undefined && key !== '' ? { authorization: `Bearer ${key}` } : {}),
      ...(json ? { 'content-type': 'application/json' } : {}),
      ...extra,
    };
  }

  /** The body as text, refusing more than `maxResponseBytes`. */
  private async read(body: AsyncIterable<Uint8Array>): Promise<string> {
    const decoder = new TextDecoder();
    let text = '';
    let size = 0;
    for await (const chunk of body) {
      size += chunk.byteLength;
      if (size > this.maxBytes) {
        throw new BackendError(`the server's answer is over ${this.maxBytes} bytes`, {
          backend: 'cloud',
          original_error: 'answer too large',
        });
      }
      text += decoder.decode(chunk, { stream: true });
    }
    return text + decoder.decode();
  }

  private failure(error: unknown, what: string, signal: AbortSignal | undefined): WeftError {
    if (error instanceof WeftError) return error;
    if (signal?.aborted) {
      const reason: unknown = signal.reason;
      if (reason instanceof WeftError) return reason;
      return new CanceledError(`${what} was canceled`, { canceled_at: new Date().toISOString() });
    }
    const code = error instanceof TransportError ? error.code : codeOf(error);
    const unreachable =
      error instanceof TransportError ? error.unreachable : UNREACHABLE_CODES.has(code);
    if (unreachable) {
      return new UnavailableError(
        `${what}: cannot reach the server at ${this.baseUrl}${code ? ` (${code})` : ''}`,
        { backend: 'cloud', suggestion: this.unreachableHint },
      );
    }
    const message = `${error instanceof Error ? error.message : String(error)}${code ? ` (${code})` : ''}`;
    return new BackendError(`${what} failed: ${message}`, {
      backend: 'cloud',
      original_error: message,
    });
  }
}

/** The `code` a Node network error (or its cause, under Node's fetch) carries, if any. */
function codeOf(error: unknown): string {
  const failed = error as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = failed?.code ?? failed?.cause?.code;
  return typeof code === 'string' ? code : '';
}
