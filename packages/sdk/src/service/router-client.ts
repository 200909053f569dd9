import { Agent, request, type Dispatcher } from 'undici';
import {
  backoffDelay,
  fromErrorObject,
  type RegistrationResponse,
  type RouterRegistration,
} from '@weft/core';

/** Client certificate (PEM) for mutual TLS with the router (docs/router.md#protection). */
export interface ClientTls {
  /** Client certificate. */
  cert: string | Buffer;
  /** Its private key. */
  key: string | Buffer;
  /** CA that signed the router's certificate (default: the system's). */
  ca?: string | Buffer;
}

/** How registration retries while the router does not answer. */
export interface RetryPolicy {
  /** First delay in ms. Default 200. */
  initialMs?: number;
  /** Largest delay in ms. Default 5000. */
  maxMs?: number;
  /** Give up after this many attempts (default: never, until the service closes). */
  maxAttempts?: number;
}

/** A dispatcher for calls to the router: keep-alive, and the client certificate when given. */
export function routerAgent(tls: ClientTls | undefined): Agent {
  return new Agent({
    keepAliveTimeout: 10_000,
    ...(tls
      ? { connect: { cert: tls.cert, key: tls.key, ...(tls.ca ? { ca: tls.ca } : {}) } }
      : {}),
  });
}

/**
 * Registers with the router (`POST {routerUrl}/register`), retrying with exponential backoff
 * and jitter while it cannot be reached or answers 5xx/429; a 4xx answer (a bad record, a
 * missing token) is thrown as its `WeftError` at once.
 */
export async function registerWithRouter(
  routerUrl: string,
  record: RouterRegistration,
  options: {
    agent: Dispatcher;
    token?: string;
    retry?: RetryPolicy;
    signal?: AbortSignal;
    onRetry?: (attempt: number, error: unknown) => void;
  },
): Promise<RegistrationResponse> {
  const initial = options.retry?.initialMs ?? 200;
  const max = options.retry?.maxMs ?? 5000;
  const attempts = options.retry?.maxAttempts ?? Infinity;
  for (let attempt = 1; ; attempt++) {
    options.signal?.throwIfAborted();
    let retryable: unknown;
    let final: unknown;
    try {
      const response = await request(`${routerUrl.replace(/\/+$/, '')}/register`, {
        method: 'POST',
        dispatcher: options.agent,
        headers: {
          'content-type': 'application/json',
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        },
        body: JSON.stringify(record),
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const text = await response.body.text();
      if (response.statusCode === 200 || response.statusCode === 201) {
        return JSON.parse(text) as RegistrationResponse;
      }
      const error = fromErrorObject(
        safeJson(text) ?? { message: `the router answered ${response.statusCode}` },
      );
      if (response.statusCode < 500 && response.statusCode !== 429) final = error;
      else retryable = error;
    } catch (error) {
      // Network failures (no answer) are retried; anything else is a bug to report.
      if (options.signal?.aborted || typeof (error as { code?: unknown }).code !== 'string') {
        throw error;
      }
      retryable = error;
    }
    if (final !== undefined) throw final;
    if (attempt >= attempts) throw retryable;
    options.onRetry?.(attempt, retryable);
    const delay = backoffDelay(attempt, { initialMs: initial, maxMs: max, jitter: 'equal' });
    await sleep(delay, options.signal);
  }
}

/** Removes the instance from the router's table; resolves to false when that failed. */
export async function deregisterFromRouter(
  routerUrl: string,
  pluginSlug: string,
  instanceId: string,
  options: { agent: Dispatcher; token?: string; timeoutMs?: number },
): Promise<boolean> {
  try {
    const response = await request(
      `${routerUrl.replace(/\/+$/, '')}/register/${encodeURIComponent(pluginSlug)}/${encodeURIComponent(instanceId)}`,
      {
        method: 'DELETE',
        dispatcher: options.agent,
        headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
        signal: AbortSignal.timeout(options.timeoutMs ?? 3000),
      },
    );
    await response.body.dump();
    return response.statusCode === 200 || response.statusCode === 404;
  } catch {
    return false;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
