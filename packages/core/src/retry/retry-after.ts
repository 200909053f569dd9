/** A header's value as the HTTP clients give it: undici and Node repeat a header as an array. */
export type HeaderValue = string | readonly string[] | null | undefined;

/** What {@link parseRetryAfter} and {@link retryAfterMs} need besides the header. */
export interface RetryAfterOptions {
  /** The time an HTTP date is measured from, in ms since the epoch. Default `Date.now()`. */
  now?: number;
  /**
   * The longest wait honoured, in ms: a server asking for more reads as undefined, so the
   * caller's own backoff applies. Default: no limit.
   */
  maxMs?: number;
}

/** Delay seconds (RFC 9110 §10.2.3), with the decimals some model APIs send. */
const SECONDS = /^\d+(?:\.\d+)?$/;
/**
 * An HTTP date starts with the day's name in each of its three forms (RFC 9110 §5.6.7), which
 * keeps `Date.parse`, lenient as it is, from reading `-1` or `7 days` as dates.
 */
const HTTP_DATE = /^[A-Za-z]{3}/;

/**
 * The wait a `Retry-After` value asks for, in ms: delay seconds (`120`, `1.5`) or an HTTP date
 * (`Wed, 21 Oct 2015 07:28:00 GMT`; a date already past is 0). Undefined when there is no value,
 * when it is neither form, or when it is over `maxMs`. Of a repeated header, the first counts.
 */
export function parseRetryAfter(
  value: HeaderValue,
  options: RetryAfterOptions = {},
): number | undefined {
  const text = first(value);
  if (text === undefined) return undefined;
  let wait: number;
  if (SECONDS.test(text)) wait = Number(text) * 1000;
  else {
    const at = HTTP_DATE.test(text) ? Date.parse(text) : NaN;
    if (Number.isNaN(at)) return undefined;
    wait = Math.max(0, at - (options.now ?? Date.now()));
  }
  return within(wait, options.maxMs);
}

/**
 * The wait a server asks for before a retry, in ms: `retry-after-ms` (OpenAI's and Anthropic's
 * APIs send it) when it reads and is within `maxMs`, else `Retry-After` by
 * {@link parseRetryAfter}. `get` reads a header of the failed answer by its lower-case name.
 */
export function retryAfterMs(
  get: (name: string) => HeaderValue,
  options: RetryAfterOptions = {},
): number | undefined {
  const ms = first(get('retry-after-ms'));
  const asked =
    ms !== undefined && SECONDS.test(ms) ? within(Number(ms), options.maxMs) : undefined;
  return asked ?? parseRetryAfter(get('retry-after'), options);
}

/** The first value of a header, trimmed; undefined when absent or blank. */
function first(value: HeaderValue): string | undefined {
  const text = (typeof value === 'string' ? value : value?.[0])?.trim();
  return text ? text : undefined;
}

function within(wait: number, maxMs: number | undefined): number | undefined {
  return maxMs === undefined || wait <= maxMs ? wait : undefined;
}
