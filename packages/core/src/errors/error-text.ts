import type { ErrorObject } from './codec.js';

/**
 * Most characters of an error's `message` and of each text in its `details` (`original_error`,
 * an upstream body...): an upstream answer of 50 KB must not be copied whole into every record,
 * event, log line and console page (docs/protocol.md#error-object).
 */
export const MAX_ERROR_TEXT = 1_024;

/** Most characters of `details.stack_trace` (kept longer: its frames are what it is for). */
export const MAX_STACK_TRACE = 4_096;

/**
 * Most characters of an upstream text where it is first copied (a connector's error body, an
 * instance's error answer), before the run can mask its secrets. Longer than
 * {@link MAX_ERROR_TEXT}: the run masks, then cuts to that, so a secret cut in half here is
 * always past what is kept.
 */
export const MAX_UPSTREAM_TEXT = 8_192;

/**
 * `text` cut to at most `max` characters: its beginning, then `… (N more characters)`. The result
 * is never longer than `max`, so cutting again changes nothing.
 */
export function capText(text: string, max = MAX_ERROR_TEXT): string {
  if (text.length <= max) return text;
  const marker = (end: number) => `… (${text.length - end} more characters)`;
  let end = max - marker(max).length;
  // Cutting more can add a digit to the marker: step back until both fit.
  while (end > 0 && end + marker(end).length > max) end--;
  // Never split a surrogate pair.
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  end = Math.max(0, end);
  return `${text.slice(0, end)}${marker(end)}`;
}

/**
 * An error object with its `message` and each string of its `details` cut by {@link capText} to
 * `limit` (`stack_trace` at {@link MAX_STACK_TRACE}); the same object when nothing is too long. Cut after
 * masking secrets, never before: a secret cut in half would no longer be recognised.
 */
export function capErrorObject<T extends Pick<ErrorObject, 'message' | 'details'>>(
  error: T,
  limit = MAX_ERROR_TEXT,
): T {
  let out: T | undefined;
  if (typeof error.message === 'string' && error.message.length > limit) {
    out = { ...error, message: capText(error.message, limit) };
  }
  const details = error.details;
  if (typeof details !== 'object' || details === null) return out ?? error;
  let cut: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(details)) {
    if (typeof value !== 'string') continue;
    const max = key === 'stack_trace' ? Math.max(MAX_STACK_TRACE, limit) : limit;
    if (value.length <= max) continue;
    cut ??= { ...details };
    cut[key] = capText(value, max);
  }
  if (cut) out = { ...(out ?? error), details: cut };
  return out ?? error;
}
