/** Why a request timestamp was refused. */
export type TimestampFailure = 'missing_timestamp' | 'malformed_timestamp' | 'stale_timestamp';

/**
 * Parses a request timestamp: Unix seconds (up to 11 digits), Unix milliseconds (12–14 digits) or
 * an ISO 8601 date-time with a zone. Returns epoch milliseconds, or undefined when unreadable.
 */
export function parseTimestamp(value: string): number | undefined {
  const text = value.trim();
  if (/^\d{1,11}$/.test(text)) return Number(text) * 1000;
  if (/^\d{12,14}$/.test(text)) return Number(text);
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(text)) {
    const ms = Date.parse(text);
    return Number.isNaN(ms) ? undefined : ms;
  }
  return undefined;
}

/**
 * Checks that a timestamp header lies within `windowMs` of `nowMs`, in the past or (for clock
 * skew) in the future. Returns the failure, or undefined when the timestamp is fresh.
 */
export function checkTimestamp(
  value: string | undefined,
  nowMs: number,
  windowMs: number,
): TimestampFailure | undefined {
  if (value === undefined || value.trim() === '') return 'missing_timestamp';
  const at = parseTimestamp(value);
  if (at === undefined) return 'malformed_timestamp';
  return Math.abs(nowMs - at) > windowMs ? 'stale_timestamp' : undefined;
}
