import type { ServerResponse } from 'node:http';
import { CanceledError } from '@weft/core';
import type { CallSignal } from '../upstream.js';

/**
 * Fires when the caller's connection closes before the answer was sent (the caller gave up: a
 * canceled run, a client timeout), so that the call to the instance is abandoned, its
 * connection closed (the service's handler sees its `AbortSignal`) and `in_flight` drops. The
 * part of `AbortSignal` dispatch uses, without an `AbortController` and its `EventTarget` for
 * every call (a measurable share of the router's own work per call).
 */
export class CallerGone implements CallSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] | undefined;

  constructor(private readonly response: ServerResponse) {
    response.on('close', this.onClose);
  }

  private readonly onClose = (): void => {
    if (this.response.writableFinished || this.aborted) return;
    this.aborted = true;
    this.reason = new CanceledError('the caller closed the connection before the answer', {
      canceled_at: new Date().toISOString(),
    });
    const listeners = this.listeners;
    this.listeners = undefined;
    for (const listener of listeners ?? []) listener();
  };

  addEventListener(_type: 'abort', listener: () => void): void {
    (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    if (this.listeners) this.listeners = this.listeners.filter((l) => l !== listener);
  }
}
