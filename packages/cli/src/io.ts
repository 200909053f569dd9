/** Where a command writes: the process streams, or buffers in tests. */
export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Whether to color output. */
  color: boolean;
}

/** The process's own streams. */
export function processIo(): Io {
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    color: Boolean(process.stdout.isTTY) && process.env['NO_COLOR'] === undefined,
  };
}
