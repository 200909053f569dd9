import {
  BackendError,
  capText,
  MAX_UPSTREAM_TEXT,
  UnavailableError,
  ValidationError,
  type WeftError,
} from '@weft/core';
import type { Agent } from 'undici';
import { injectTraceContext } from '@weft/telemetry';
import { loadUndici } from '../client/undici-transport.js';
import type { HttpEgress } from '../invoker/options.js';
import type { ActionRun } from './action-run.js';
import { pacedBody, type TokenBucket } from './bandwidth.js';
import { abortError } from './errors.js';

/** An HTTP answer whose body was read (bounded) and parsed when it is JSON. */
export interface HttpAnswer {
  status: number;
  /** The parsed JSON body; `undefined` when the body is not JSON. */
  json: unknown;
  /** The body as text (for messages). */
  text: string;
}

/** How one request may be sent. */
export interface SendLimits {
  /** Largest answer body, in bytes. */
  maxBytes: number;
  /** The egress policy requests obey; none: anywhere, with Node's fetch. */
  egress: HttpEgress | undefined;
  /** The definition field the URL comes from (`details.field` of a refusal). */
  field: string;
  /** The call's bandwidth: the bytes of the request body sent and of the answer body read. */
  bucket: TokenBucket;
}

/** One connection pool per egress policy, connecting through its checking `lookup`. */
const dispatchers = new WeakMap<HttpEgress, Agent>();

function dispatcherOf(egress: HttpEgress, undici: { Agent: typeof Agent }): Agent {
  let agent = dispatchers.get(egress);
  if (!agent) {
    agent = new undici.Agent({ connect: { lookup: egress.lookup } });
    dispatchers.set(egress, agent);
  }
  return agent;
}

/** Connection failures that mean "the service is not there" rather than "it failed". */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Sends one request with Node's fetch on the call's signal, with `Idempotency-Key` set to the
 * call's idempotency key, and reads the answer: redirects are never followed (a 3xx is
 * `BACKEND_ERROR` naming the location), a body over `maxBytes` is `BACKEND_ERROR`, a service
 * that cannot be reached (connection refused, DNS failure) is `UNAVAILABLE`. With an egress
 * policy, a refused address (before connecting or at connect time) is `VALIDATION`. The
 * request body is sent, and the answer body read, at the pace of `limits.bucket`.
 */
export async function sendRequest(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
  run: ActionRun,
  limits: SendLimits,
): Promise<HttpAnswer> {
  const { maxBytes, egress, field, bucket } = limits;
  const { context, connector, call } = run;
  const backend = connector.name;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  for (const [key, value] of Object.entries(init.headers)) headers[key.toLowerCase()] = value;
  if (context.idempotencyKey !== '') headers['idempotency-key'] = context.idempotencyKey;
  // The action span's trace context (tracing passes it on the call), else the active span's.
  if (run.trace !== undefined) Object.assign(headers, run.trace);
  else injectTraceContext(headers);
  const request = {
    method: init.method,
    headers,
    redirect: 'manual',
    signal: context.signal,
    ...requestBody(init.body, headers, bucket, context.signal),
  } as const;
  let response: Response;
  try {
    if (egress) {
      const reason = await egress.refusal(new URL(url));
      if (reason !== undefined) throw refused(run, field, url, reason);
      // undici's own fetch, for a dispatcher that checks each address it connects to.
      const undici = await loadUndici();
      const answer = await undici.fetch(url, {
        ...request,
        dispatcher: dispatcherOf(egress, undici),
      });
      response = answer;
    } else {
      response = await fetch(url, request);
    }
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    throw requestError(error, run, url, field);
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    const location = response.headers.get('location') ?? 'an unknown location';
    const message = `${url} answered ${response.status}, a redirect to ${location}, which is not followed`;
    throw new BackendError(`${call}: ${message}`, { backend, original_error: message });
  }
  const text = await readBody(response, { maxBytes, bucket }, run);
  let json: unknown;
  try {
    json = text.trim() === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text };
}

/** A BACKEND_ERROR for an answer that is not what the caller expected. */
export function badAnswer(
  run: ActionRun,
  url: string,
  answer: HttpAnswer,
  what: string,
): WeftError {
  // The beginning of the body (where an error says what failed), bounded: the run masks its
  // secrets, then cuts the error's texts to 1,024 characters.
  const body = capText(answer.text.trim(), MAX_UPSTREAM_TEXT) || '(empty body)';
  const message = `${url} answered ${answer.status} ${what}: ${body}`;
  return new BackendError(`${run.call}: ${message}`, {
    backend: run.connector.name,
    original_error: message,
    status_code: answer.status,
  });
}

/**
 * The body of a request: the text itself when the bucket holds its bytes now (the common small
 * JSON body, sent as before), else a stream paced by the bucket, with its `content-length` set
 * so that the server sees the same request (not a chunked one).
 */
function requestBody(
  body: string | undefined,
  headers: Record<string, string>,
  bucket: TokenBucket,
  signal: AbortSignal,
): { body?: string | ReadableStream<Uint8Array>; duplex?: 'half' } {
  if (body === undefined) return {};
  const bytes = Buffer.from(body, 'utf8');
  if (bucket.tryTake(bytes.byteLength)) return { body };
  headers['content-length'] = String(bytes.byteLength);
  return { body: pacedBody(bytes, bucket, signal), duplex: 'half' };
}

async function readBody(
  response: Response,
  limits: { maxBytes: number; bucket: TokenBucket },
  run: ActionRun,
): Promise<string> {
  const { maxBytes, bucket } = limits;
  const tooLarge = () => {
    const message = `the answer is over the limit of ${maxBytes} bytes`;
    return new BackendError(`${run.call}: ${message}`, {
      backend: run.connector.name,
      original_error: message,
    });
  };
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body) {
      size += chunk.byteLength;
      if (size > maxBytes) {
        await response.body.cancel().catch(() => undefined);
        throw tooLarge();
      }
      chunks.push(chunk);
      // The next chunk is read once this one's bytes went through the bucket.
      await bucket.take(chunk.byteLength, run.context.signal);
    }
  } catch (error) {
    if (error instanceof BackendError) throw error;
    throw requestError(error, run, response.url);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The `VALIDATION` error of a request the egress policy refuses. */
function refused(run: ActionRun, field: string, url: string, reason: string): WeftError {
  return new ValidationError(`${run.call}: the request to ${safeHost(url)} is refused: ${reason}`, {
    field,
    constraint: 'egress',
  });
}

function requestError(error: unknown, run: ActionRun, url: string, field?: string): WeftError {
  const { context, connector, call } = run;
  if (context.signal.aborted) return abortError(context.signal);
  const failure = codedCause(error);
  const code = failure?.code;
  const host = safeHost(url);
  if (code === 'EGRESS_REFUSED' && field !== undefined) {
    return refused(run, field, url, failure?.message ?? 'the address is not allowed');
  }
  if (code !== undefined && UNREACHABLE.has(code)) {
    return new UnavailableError(`${call}: cannot reach ${host} (${code})`, {
      backend: connector.name,
      suggestion: `start the service at ${host}, or check the URL of ${connector.name}`,
    });
  }
  const message = `${error instanceof Error ? error.message : String(error)}${code ? ` (${code})` : ''}`;
  return new BackendError(`${call}: request to ${host} failed: ${message}`, {
    backend: connector.name,
    original_error: message,
  });
}

/** A fetch failure's cause with a `code` (or the first of an AggregateError's errors). */
function codedCause(error: unknown): { code: string; message: string | undefined } | undefined {
  let cause: unknown = error instanceof Error ? (error.cause ?? error) : error;
  for (let depth = 0; depth < 4 && cause !== null && typeof cause === 'object'; depth++) {
    const record = cause as {
      code?: unknown;
      message?: unknown;
      errors?: unknown[];
      cause?: unknown;
    };
    if (typeof record.code === 'string') {
      const message = typeof record.message === 'string' ? record.message : undefined;
      return { code: record.code, message };
    }
    cause = record.errors?.[0] ?? record.cause;
  }
  return undefined;
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the service';
  }
}
