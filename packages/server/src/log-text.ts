/** pino's level numbers, as a text line names them. */
const LEVELS: Readonly<Record<number, string>> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** What every line has and a text line does not repeat as a field. */
const OMITTED = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'err']);

/**
 * One pino JSON line as a readable line for a terminal: `12:00:00.123 INFO  message key=value
 * ...` (local time; a value with spaces, quotes or structure in JSON), and an error's stack
 * indented below. A line that is not JSON passes as it is.
 */
export function textLogLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  if (typeof entry !== 'object' || entry === null) return json.endsWith('\n') ? json : `${json}\n`;
  const level = LEVELS[entry['level'] as number] ?? String(entry['level'] ?? '');
  const time = typeof entry['time'] === 'number' ? clock(new Date(entry['time'])) : '';
  const fields = Object.entries(entry)
    .filter(([key, value]) => !OMITTED.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${fieldValue(value)}`);
  const err = entry['err'] as { message?: unknown; stack?: unknown } | undefined;
  if (err && typeof err === 'object') fields.push(`err=${fieldValue(String(err.message ?? ''))}`);
  const message = typeof entry['msg'] === 'string' ? entry['msg'] : '';
  const head = [time, level.padEnd(5), message].filter((part) => part !== '').join(' ');
  const stack =
    err && typeof err.stack === 'string'
      ? `\n${err.stack
          .split('\n')
          .map((line) => `    ${line.trim()}`)
          .join('\n')}`
      : '';
  return `${head}${fields.length > 0 ? `  ${fields.join(' ')}` : ''}${stack}\n`;
}

/** A pino destination writing {@link textLogLine}s through `write` (stdout for `weft server`). */
export function textLogStream(write: (text: string) => void): { write(line: string): void } {
  return { write: (line) => write(textLogLine(line)) };
}

/** `HH:MM:SS.mmm`, local time. */
function clock(at: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}.${String(at.getMilliseconds()).padStart(3, '0')}`;
}

/** A field's value: bare when it reads unambiguously, else as JSON. */
function fieldValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null)
    return String(value);
  return JSON.stringify(value);
}
