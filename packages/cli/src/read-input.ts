import { stat, readFile } from 'node:fs/promises';
import type { Diagnostic } from '@weft/engine';

/** A file read for the loader, or the diagnostic saying why it could not be. */
export type ReadResult = { ok: true; bytes: Uint8Array } | { ok: false; diagnostic: Diagnostic };

/** Reads a file, refusing one over `maxBytes` before reading it. */
export async function readInputFile(file: string, maxBytes: number): Promise<ReadResult> {
  const fail = (message: string, code = 'io'): ReadResult => ({
    ok: false,
    diagnostic: { severity: 'error', code, path: '', message, file },
  });
  try {
    const info = await stat(file);
    if (!info.isFile()) return fail('not a file');
    if (info.size > maxBytes) {
      return fail(
        `file is ${info.size} bytes, over the limit of ${maxBytes} bytes (raise it with --max-file-size)`,
        'too_large',
      );
    }
    return { ok: true, bytes: await readFile(file) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return fail('no such file');
    if (code === 'EACCES') return fail('permission denied');
    return fail(`cannot read: ${(error as Error).message}`);
  }
}
