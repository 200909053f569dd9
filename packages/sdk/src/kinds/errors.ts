import { BackendError, CanceledError, WeftError } from '@weft/core';

/**
 * The error a call ends with once its signal is aborted: the signal's reason when it is a
 * `WeftError` (the engine aborts a timed-out attempt with its `TIMEOUT`), else `CANCELED`.
 */
export function abortError(signal: AbortSignal): WeftError {
  const reason: unknown = signal.reason;
  if (reason instanceof WeftError) return reason;
  return new CanceledError('the action was canceled', { canceled_at: new Date().toISOString() });
}

/**
 * Maps whatever an action threw to the taxonomy (docs/protocol.md#error-codes): a `WeftError` keeps its code; after
 * an abort, {@link abortError}; any other exception becomes `BACKEND_ERROR` with
 * `details {backend, original_error}`.
 */
export function toActionError(error: unknown, backend: string, signal: AbortSignal): WeftError {
  if (error instanceof WeftError) return error;
  if (signal.aborted) return abortError(signal);
  const message = error instanceof Error ? error.message : String(error);
  return new BackendError(
    `${backend} failed: ${message}`,
    { backend, original_error: message },
    {
      cause: error,
    },
  );
}

/** The last `max` characters of `text` (with a leading `...` when cut), trimmed. */
export function tail(text: string, max = 2000): string {
  const trimmed = text.trim();
  return trimmed.length <= max ? trimmed : `...${trimmed.slice(trimmed.length - max)}`;
}

/**
 * Collects chunks up to `limit` bytes. `keepTail` keeps the last `limit` bytes instead of
 * failing (stderr); otherwise `overflowed` turns true and later chunks are dropped.
 */
export class BoundedBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  /** True once more than `limit` bytes were offered (and `keepTail` is off). */
  overflowed = false;

  constructor(
    private readonly limit: number,
    private readonly keepTail = false,
  ) {}

  /** Adds a chunk. */
  push(chunk: Buffer): void {
    if (this.overflowed) return;
    this.chunks.push(chunk);
    this.size += chunk.byteLength;
    if (this.size <= this.limit) return;
    if (!this.keepTail) {
      this.overflowed = true;
      return;
    }
    const joined = Buffer.concat(this.chunks);
    this.chunks = [joined.subarray(joined.byteLength - this.limit)];
    this.size = this.limit;
  }

  /** The collected bytes as UTF-8 text. */
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}
