import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/** Where programs are looked for when the action's environment has no `PATH`. */
export const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * The file a command's program names: a name with a `/` is taken from the connector's folder
 * (`dir`, else the process's working directory) when it is relative; a bare name is looked up
 * on `path` (the action's `PATH`, else {@link DEFAULT_PATH}). `undefined` when there is no such
 * executable file.
 */
export async function findProgram(
  program: string,
  dir: string | undefined,
  path: string | undefined,
): Promise<string | undefined> {
  if (program.includes('/')) {
    const file = isAbsolute(program) ? program : resolve(dir ?? '.', program);
    return (await runnable(file)) ? file : undefined;
  }
  for (const entry of (path ?? DEFAULT_PATH).split(delimiter)) {
    if (entry === '') continue;
    const file = join(resolve(dir ?? '.', entry), program);
    if (await runnable(file)) return file;
  }
  return undefined;
}

async function runnable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}
