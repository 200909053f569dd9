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
 * with `signal.reason` when `signal` aborts.
 */
export function sendUpstream(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal?: CallSignal,
): Promise<UpstreamAnswer> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    let statusCode = 0;
    const chunks: Buffer[] = [];
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
        chunks.push(chunk);
        return true;
      },
      onComplete() {
        done();
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
