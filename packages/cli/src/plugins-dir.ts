import { lstat, mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';

/** The directory `weft plugin install --save` writes to: `./plugins` unless told otherwise. */
export function pluginsDir(dir = './plugins'): string {
  return resolve(dir);
}

/** Where installs are recorded: slug -> version, source registry and checksum. */
export const MANIFEST = '.weft-plugins.json';

/** One recorded install. */
export interface InstalledEntry {
  version: string;
  registry: string;
  checksum: string;
  installed_at: string;
}

/** Reads the install manifest (empty when missing or unreadable). */
export async function readManifest(dir: string): Promise<Record<string, InstalledEntry>> {
  try {
    const parsed = JSON.parse(await readFile(join(dir, MANIFEST), 'utf8')) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, InstalledEntry>)
      : {};
  } catch {
    return {};
  }
}

/**
 * Writes `<dir>/<slug>.yaml` atomically and records the install. The slug must already be
 * valid; the target is checked to stay inside `dir` and not to be a symbolic link.
 */
export async function saveInstalled(
  dir: string,
  slug: string,
  bytes: Uint8Array,
  entry: InstalledEntry,
): Promise<string> {
  const target = resolve(dir, `${slug}.yaml`);
  if (!target.startsWith(dir + sep)) throw new Error(`refusing to write outside ${dir}: ${target}`);
  await mkdir(dir, { recursive: true });
  if ((await lstat(dir)).isSymbolicLink())
    throw new Error(`${dir} is a symbolic link; refusing to write through it`);
  const existing = await lstat(target).catch(() => undefined);
  if (existing?.isSymbolicLink())
    throw new Error(`${target} is a symbolic link; refusing to overwrite it`);
  const temporary = `${target}.${process.pid}.tmp`;
  await writeFile(temporary, bytes, { flag: 'wx' });
  await rename(temporary, target);
  const manifest = await readManifest(dir);
  manifest[slug] = entry;
  await writeFile(join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return target;
}

/** Definition files in `dir` (`*.yaml`, `*.yml`, `*.json` except the manifest). */
export async function definitionFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.filter((n) => /\.(ya?ml|json)$/i.test(n) && n !== MANIFEST).sort();
}
