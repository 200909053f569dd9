import { Agent, request, type Dispatcher } from 'undici';
import {
  BackendError,
  CanceledError,
  fromErrorObject,
  UnavailableError,
  WeftError,
} from '@weft/core';
import { checkServerUrl } from '../invoker/server-url.js';

/** Options of {@link CloudApi}. */
export interface CloudApiOptions {
  /** Base URL of the server (`weft server`), e.g. `https://weft.example.com`. */
  baseUrl: string;
  /** The API key sent as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** Largest answer accepted, in bytes. Default 10 MiB. */
  maxResponseBytes?: number;
}

/** What a request sends: a JSON `body`, or `raw` bytes of a content type. */
export interface CloudRequest {
  body?: unknown;
  raw?: { data: string | Uint8Array; contentType: string };
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** One answer of the server: status, headers and the body parsed as JSON. */
export interface CloudAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: unknown;
}

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/**
 * The SDK's HTTP client of a weft server (the `cloud` and `hybrid` modes): JSON requests with the
 * bearer key; a §2.10 error body comes back as the {@link WeftError} of its code, a server that
 * cannot be reached as `UNAVAILABLE`, anything else as `BACKEND_ERROR`.
 */
export class CloudApi {
  /** The server's base URL without a trailing slash. */
  readonly baseUrl: string;
  private readonly agent: Agent;
  private readonly apiKey: string;
  private readonly maxBytes: number;

  constructor(options: CloudApiOptions) {
    this.baseUrl = checkCloudUrl(options.baseUrl, 'cloudUrl').toString().replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.agent = new Agent({ keepAliveTimeout: 30_000 });
    this.maxBytes = options.maxResponseBytes ?? 10 * 1024 * 1024;
  }

  /** Sends `method path` with an optional JSON body; resolves to a 2xx answer, else throws. */
  async call(
    method: Dispatcher.HttpMethod,
    path: string,
    options: CloudRequest = {},
  ): Promise<CloudAnswer> {
    const answer = await this.send(method, path, options);
    if (answer.status >= 200 && answer.status < 300) return answer;
    throw this.errorOf(answer, `${method} ${path}`);
  }

  /** Like {@link call}, but gives any answer back (for callers that branch on 404). */
  async send(
    method: Dispatcher.HttpMethod,
    path: string,
    options: CloudRequest = {},
  ): Promise<CloudAnswer> {
    let status: number;
    let headers: CloudAnswer['headers'];
    let text: string;
    try {
      const response = await request(`${this.baseUrl}${path}`, {
        method,
        dispatcher: this.agent,
        headers: {
          ...this.headers(options.headers, options.body !== undefined),
          ...(options.raw ? { 'content-type': options.raw.contentType } : {}),
        },
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
        ...(options.raw ? { body: options.raw.data } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      status = response.statusCode;
      headers = response.headers;
      text = await this.read(response.body as AsyncIterable<Buffer>);
    } catch (error) {
      throw this.failure(error, `${method} ${path}`, options.signal);
    }
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw new BackendError(`${method} ${path}: the server answered ${status} with non-JSON`, {
        backend: 'cloud',
        original_error: `HTTP ${status}`,
      });
    }
    return { status, headers, json };
  }

  /** Opens a streaming GET (server-sent events); the caller reads and closes the body. */
  async open(
    path: string,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<Dispatcher.ResponseData> {
    try {
      const response = await request(`${this.baseUrl}${path}`, {
        method: 'GET',
        dispatcher: this.agent,
        headers: { ...this.headers(headers, false), accept: 'text/event-stream' },
        signal,
      });
      if (response.statusCode === 200) return response;
      const text = await this.read(response.body as AsyncIterable<Buffer>);
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      throw this.errorOf(
        { status: response.statusCode, headers: response.headers, json },
        `GET ${path}`,
      );
    } catch (error) {
      throw this.failure(error, `GET ${path}`, signal);
    }
  }

  /** The error an answer that is not 2xx stands for. */
  errorOf(answer: CloudAnswer, what: string): WeftError {
    const body = answer.json as Record<string, unknown> | undefined;
    if (body && body['status'] === 'error') return fromErrorObject(body);
    return new BackendError(`${what}: the server answered ${answer.status}`, {
      backend: 'cloud',
      original_error: `HTTP ${answer.status}`,
    });
  }

  /** Closes the connections kept open to the server. */
  async close(): Promise<void> {
    await this.agent.close();
  }

  private headers(extra: Record<string, string> | undefined, json: boolean) {
    return {
      accept: 'application/json',
      authorization: `Bearer ${this.apiKey}`,
      ...(json ? { 'content-type': 'application/json' } : {}),
      ...extra,
    };
  }

  private async read(body: AsyncIterable<Buffer>): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += chunk.byteLength;
      if (size > this.maxBytes) {
        throw new BackendError(`the server's answer is over ${this.maxBytes} bytes`, {
          backend: 'cloud',
          original_error: 'answer too large',
        });
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  private failure(error: unknown, what: string, signal: AbortSignal | undefined): WeftError {
    if (error instanceof WeftError) return error;
    if (signal?.aborted) {
      const reason: unknown = signal.reason;
      if (reason instanceof WeftError) return reason;
      return new CanceledError(`${what} was canceled`, { canceled_at: new Date().toISOString() });
    }
    const code = (error as { code?: string }).code ?? '';
    if (UNREACHABLE.has(code)) {
      return new UnavailableError(`${what}: cannot reach the server at ${this.baseUrl} (${code})`, {
        backend: 'cloud',
        suggestion: `check cloudUrl (WORKFLOW_CLOUD_URL) and that weft server runs at ${this.baseUrl}`,
      });
    }
    const message = `${error instanceof Error ? error.message : String(error)}${code ? ` (${code})` : ''}`;
    return new BackendError(`${what} failed: ${message}`, {
      backend: 'cloud',
      original_error: message,
    });
  }
}

/** Checks a server URL: absolute http(s), no credentials. Throws `VALIDATION` naming `field`. */
export function checkCloudUrl(text: string | undefined, field: string): URL {
  return checkServerUrl(text, field, {
    role: 'server',
    example: 'https://weft.example.com',
    unsetHint: ' (or set WORKFLOW_CLOUD_URL)',
  });
}
