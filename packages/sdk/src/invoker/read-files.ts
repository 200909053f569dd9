import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { ValidationError } from '@weft/core';
import { DEFAULT_MAX_FILE_SIZE } from '@weft/engine';

/** A connector definition to compile: parsed data or file bytes, and where it came from. */
export interface ConnectorSource {
  input: string | Uint8Array | object;
  /** The path as given (for messages). */
  file?: string;
  /** Working directory of its `shell` commands: the file's folder. */
  cwd?: string;
}

/**
 * Names of the files {@link readConnectorDir} loads: `*.yaml`, `*.yml`, `*.json`, not hidden (a
 * name starting with `.` is bookkeeping or an editor's file, never a connector).
 */
export const CONNECTOR_FILE = /^[^.].*\.(ya?ml|json)$/i;

/**
 * Reads one connector file. A file over `maxFileSize` is refused before it is read; a missing
 * or unreadable file is `VALIDATION` naming it.
 */
export async function readConnectorFile(
  path: string,
  maxFileSize = DEFAULT_MAX_FILE_SIZE,
): Promise<ConnectorSource> {
  const absolute = resolve(path);
  try {
    const info = await stat(absolute);
    if (!info.isFile()) throw notReadable(path, 'not a file');
    if (info.size > maxFileSize) {
      throw new ValidationError(
        `${path}: file is ${info.size} bytes, over the limit of ${maxFileSize} bytes`,
        { field: 'connector', constraint: 'too_large', file: path },
      );
    }
    return { input: await readFile(absolute), file: path, cwd: dirname(absolute) };
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    throw notReadable(path, (error as NodeJS.ErrnoException).code ?? String(error));
  }
}

/**
 * Reads every `*.yaml`, `*.yml` and `*.json` file of a folder whose name does not start with `.`,
 * in name order (sub-folders are not searched). A missing folder gives no files when `missingOk`, else `VALIDATION`.
 */
export async function readConnectorDir(
  dir: string,
  maxFileSize = DEFAULT_MAX_FILE_SIZE,
  missingOk = false,
): Promise<ConnectorSource[]> {
  let names: string[];
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    names = entries
      .filter((entry) => entry.isFile() && CONNECTOR_FILE.test(entry.name))
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && missingOk) return [];
    throw notReadable(dir, code ?? String(error));
  }
  const sources: ConnectorSource[] = [];
  for (const name of names) sources.push(await readConnectorFile(join(dir, name), maxFileSize));
  return sources;
}

function notReadable(path: string, why: string): ValidationError {
  return new ValidationError(`cannot read ${path} (${why}): check that it exists and is readable`, {
    field: 'file',
    constraint: why === 'ENOENT' ? 'not_found' : 'unreadable',
    file: path,
  });
}
