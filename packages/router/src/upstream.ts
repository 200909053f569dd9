import type { Dispatcher } from 'undici';

/**
 * What abandons a call: an `AbortSignal`, or anything with its `aborted`, `reason` and abort
 * listeners (the router's {@link CallerGone}, cheaper than an `AbortController` per call).
 */
export interface CallSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** A progress report an instance sent before its answer (a `{"progress": …}` line). */
export interface ProgressReport {
  percent: number;
  message?: string;
}

/** An instance's answer, read whole. */
export interface UpstreamAnswer {
  statusCode: number;
  body: Buffer;
}

/**
 * Sends one request through `dispatcher` (an instance's pool) and collects the answer with a
 * bare dispatch handler: no body stream and no extra promise per chunk, which is most of the
 * client-side cost of a small call. Errors reject with undici's error (and its `code`):
 * connection failures, header and body timeouts, answers over the pool's `maxResponseSize`;
 * with `signal.reason` when `signal` aborts. With `onProgress`, the lines of a streamed answer
 * that are `{"progress": {percent, message}}` go to it as they arrive and are left out of the
 * body (the answer is the line after them).
 */
export function sendUpstream(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal?: CallSignal,
  onProgress?: (report: ProgressReport) => void,
): Promise<UpstreamAnswer> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    let statusCode = 0;
    const chunks: Buffer[] = [];
    const lines = onProgress ? new ProgressLines(onProgress, chunks) : undefined;
    let onAbort: (() => void) | undefined;
    const done = () => {
      if (onAbort) signal!.removeEventListener('abort', onAbort);
    };
    // The callback interface Pool and Client take directly (the newer one is wrapped into it).
    dispatcher.dispatch(options, {
      onConnect(abort) {
        // Aborting destroys the request's connection: the instance sees it close.
        if (!signal || onAbort) return;
        onAbort = () => abort(signal.reason as Error);
        signal.addEventListener('abort', onAbort, { once: true });
      },
      onHeaders(status) {
        statusCode = status;
        return true;
      },
      onData(chunk) {
        if (lines) lines.take(chunk);
        else chunks.push(chunk);
        return true;
      },
      onComplete() {
        done();
        lines?.end();
        resolve({
          statusCode,
          body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks),
        });
      },
      onError(error) {
        done();
        reject(error);
      },
    });
  });
}

const PROGRESS_LINE = Buffer.from('{"progress":');

/** Splits a streamed answer into lines: progress lines are reported, the others kept. */
class ProgressLines {
  private pending: Buffer = Buffer.alloc(0);

  constructor(
    private readonly report: (report: ProgressReport) => void,
    private readonly kept: Buffer[],
  ) {}

  take(chunk: Buffer): void {
    let rest = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    for (let end = rest.indexOf(10); end >= 0; end = rest.indexOf(10)) {
      this.line(rest.subarray(0, end + 1));
      rest = rest.subarray(end + 1);
    }
    this.pending = rest;
  }

  end(): void {
    if (this.pending.length > 0) this.kept.push(this.pending);
    this.pending = Buffer.alloc(0);
  }

  private line(line: Buffer): void {
    if (!line.subarray(0, PROGRESS_LINE.length).equals(PROGRESS_LINE)) {
      this.kept.push(line);
      return;
    }
    try {
      const { progress } = JSON.parse(line.toString('utf8')) as { progress?: unknown };
      const { percent, message } = (progress ?? {}) as { percent?: unknown; message?: unknown };
      if (typeof percent !== 'number' || !Number.isFinite(percent)) return;
      this.report({
        percent: Math.min(100, Math.max(0, percent)),
        ...(typeof message === 'string' ? { message: message.slice(0, 1000) } : {}),
      });
    } catch {
      // A malformed progress line is dropped: progress is advisory, the answer decides.
    }
  }
}
