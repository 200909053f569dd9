/** A timestamp in the reader's locale; `—` for none. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** `350 ms`, `4.2 s`, `3 min 5 s`, `2 h 4 min`. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}

/** From `start` to `end` (or to now while it runs); `—` before it starts. */
export function formatDuration(start: string | null | undefined, end: string | null | undefined) {
  if (!start) return '—';
  const from = Date.parse(start);
  const to = end ? Date.parse(end) : Date.now();
  return Number.isNaN(from) || Number.isNaN(to) ? '—' : formatMs(Math.max(0, to - from));
}

/** Keys whose values the console never shows, whatever the server sent. */
const SECRET_KEY = /(secret|password|passwd|token|api[_-]?key|authorization|credential)/i;
/** Keys that name a secret rather than hold one (`secret_name`): shown. */
const NAME_KEY = /_name$/i;

/** Whether the value of `key` is never shown. */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key) && !NAME_KEY.test(key);
}

/** Shown instead of a secret. */
export const MASK = '••••••';

/**
 * `value` with the values of secret-looking keys replaced by {@link MASK}: a second line of
 * defence behind the server, which already redacts values read from `secrets.*`.
 */
export function maskSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskSecrets);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      isSecretKey(key) && inner !== null ? MASK : maskSecrets(inner),
    ]),
  );
}

/** Pretty JSON of `value`, secrets masked. */
export function jsonOf(value: unknown): string {
  return JSON.stringify(maskSecrets(value), null, 2) ?? 'null';
}

/** One `key: value` line of YAML (or `"key": value` of JSON), with its key and value apart. */
const KEY_LINE = /^(\s*(?:-\s+)?"?([A-Za-z0-9_.-]+)"?\s*:\s*)(\S.*)$/;

/**
 * The text of a definition with the value of each secret-looking key's line masked (a literal
 * written where a `{{ secrets.X }}` reference belongs); the rest as it was written.
 */
export function maskSecretLines(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const match = KEY_LINE.exec(line);
      if (!match || !isSecretKey(match[2]!) || /^[{[|>]\s*$/.test(match[3]!)) return line;
      return /\{\{\s*secrets\./.test(match[3]!) ? line : `${match[1]}${MASK}`;
    })
    .join('\n');
}
