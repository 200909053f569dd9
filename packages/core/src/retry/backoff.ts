/**
 * How delays grow between attempts. The delay before retry `n` is `initialMs * factor^(n-1)`,
 * capped at `maxMs`, then spread by `jitter`.
 */
export interface BackoffOptions {
  /** The delay before the first retry, in ms. */
  initialMs: number;
  /** What each delay is multiplied by for the next one: 2 doubles it, 1 keeps it. Default 2. */
  factor?: number;
  /** The longest delay in ms, applied before the jitter. Default: no limit. */
  maxMs?: number;
  /**
   * How the delay is spread, so that many clients failing together do not retry together:
   * `none` (default) the delay itself, `full` anywhere from 0 to the delay, `equal` from half the
   * delay to the delay.
   */
  jitter?: 'none' | 'full' | 'equal';
  /** A number from 0 (included) to 1 (excluded), for the jitter. Default `Math.random`. */
  random?: () => number;
}

/**
 * The wait in ms before retry number `retry` (1 for the retry after the first failure): see
 * {@link BackoffOptions}. A delay that overflows (a very high `retry`) is `maxMs`, or `Infinity`
 * without one.
 */
export function backoffDelay(retry: number, options: BackoffOptions): number {
  const factor = options.factor ?? 2;
  const grown = options.initialMs * factor ** (retry - 1);
  const delay = options.maxMs === undefined ? grown : Math.min(options.maxMs, grown);
  const random = options.random ?? Math.random;
  switch (options.jitter ?? 'none') {
    case 'none':
      return delay;
    case 'full':
      return random() * delay;
    case 'equal':
      return delay / 2 + random() * (delay / 2);
  }
}
