import { parseRetryAfter } from '@weft/core';
import type { Dispatcher } from 'undici';
import { loadUndici } from '../client/undici-transport.js';
import { callbackHeaders, type CallbackOutcome } from './delivery.js';

/** One signed POST of a callback body. */
export interface CallbackPost {
  readonly url: string;
  readonly secret: string;
  /** The `webhook-id` (the same for every attempt of one delivery). */
  readonly webhookId: string;
  readonly body: string;
  /** The current time in milliseconds (the signature's timestamp, `Retry-After` dates). */
  readonly now: number;
  readonly signal: AbortSignal;
  /** Trace context headers to send along. */
  readonly trace?: Record<string, string>;
  /** The connection pool (the server's checks the address it connects to). */
  readonly dispatcher?: Dispatcher;
}

/**
 * Posts a callback once, signed (see `callbackHeaders`), and tells how it went: the status (null
 * when nothing answered), why it failed, and the `Retry-After` the receiver asked for.
 */
export async function postCallback(post: CallbackPost): Promise<CallbackOutcome> {
  try {
    const timestamp = Math.floor(post.now / 1000);
    // undici is loaded at the first callback: a run that sends none never imports it.
    const { request } = await loadUndici();
    const response = await request(post.url, {
      method: 'POST',
      ...(post.dispatcher ? { dispatcher: post.dispatcher } : {}),
      headers: callbackHeaders(post.secret, post.webhookId, timestamp, post.body, post.trace),
      body: post.body,
      signal: post.signal,
    });
    await response.body.dump();
    const status = response.statusCode;
    const retryAfter = parseRetryAfter(response.headers['retry-after'], { now: post.now });
    return {
      status,
      error: status >= 200 && status < 300 ? null : `HTTP ${status}`,
      ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}),
    };
  } catch (error) {
    const code = (error as { code?: string }).code;
    const message = error instanceof Error ? error.message : String(error);
    return { status: null, error: code ? `${code}: ${message}` : message };
  }
}
