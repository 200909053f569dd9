import { lstat, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { CONNECTOR_FILE } from '@weft/sdk';

/** The directory `weft plugin install --save` writes to: `./plugins` unless told otherwise. */
export function pluginsDir(dir = './plugins'): string {
  return resolve(dir);
}

/**
 * Where installs are recorded (slug -> version, source registry and checksum), inside the
 * plugins directory but in a sub-folder, which connector loading never reads.
 */
export const MANIFEST = join('.weft', 'installed.json');

/** Where installs were recorded before: a file among the connectors; moved on the next install. */
export const LEGACY_MANIFEST = '.weft-plugins.json';

/** One recorded install. */
export interface InstalledEntry {
  version: string;
  registry: string;
  checksum: string;
  installed_at: string;
}

/** Reads the install manifest, else the legacy one (empty when neither is there or readable). */
export async function readManifest(dir: string): Promise<Record<string, InstalledEntry>> {
  return (
    (await readRecords(join(dir, MANIFEST))) ??
    (await readRecords(join(dir, LEGACY_MANIFEST))) ??
    {}
  );
}

async function readRecords(file: string): Promise<Record<string, InstalledEntry> | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, InstalledEntry>)
      : {};
  } catch {
    return undefined;
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
  const file = join(dir, MANIFEST);
  await mkdir(dirname(file), { recursive: true });
  if ((await lstat(dirname(file))).isSymbolicLink())
    throw new Error(`${dirname(file)} is a symbolic link; refusing to write through it`);
  await writeFile(`${file}.${process.pid}.tmp`, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(`${file}.${process.pid}.tmp`, file);
  await rm(join(dir, LEGACY_MANIFEST), { force: true });
  return target;
}

/** Definition files in `dir`: the ones connector loading reads (`*.yaml`, `*.yml`, `*.json`, not hidden). */
export async function definitionFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile() && CONNECTOR_FILE.test(e.name))
    .map((e) => e.name)
    .sort();
}
