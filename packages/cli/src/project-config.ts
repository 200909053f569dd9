import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';

/** The name of a project's configuration file, looked for in the cwd and its parents. */
export const CONFIG_FILE = 'weft.config.yaml';

/**
 * A project's `weft.config.yaml`: the defaults of `--plugins`, `--agents` and `--require`, and
 * where the workflow files are. Paths are absolute (written relative to the file's directory).
 */
export interface ProjectConfig {
  /** The configuration file read. */
  file: string;
  plugins?: string;
  agents?: string;
  workflows?: string;
  require?: string[];
}

/** The keys a configuration file may have, and what each must be. */
const KEYS: Record<string, 'directory' | 'modules'> = {
  plugins: 'directory',
  agents: 'directory',
  workflows: 'directory',
  require: 'modules',
};

/**
 * Finds `weft.config.yaml` in `cwd` or the nearest parent (not above a directory holding `.git`,
 * the top of a repository) and reads it; undefined when there is none. A file with an unknown
 * key or a bad value is refused: {@link InvalidArgumentError} naming `file:line:col`.
 */
export function findProjectConfig(cwd: string = process.cwd()): ProjectConfig | undefined {
  let dir = resolve(cwd);
  for (;;) {
    const file = join(dir, CONFIG_FILE);
    if (existsSync(file)) return readProjectConfig(file);
    const parent = dirname(dir);
    if (parent === dir || existsSync(join(dir, '.git'))) return undefined;
    dir = parent;
  }
}

/** Reads and checks one configuration file (see {@link findProjectConfig}). */
export function readProjectConfig(file: string): ProjectConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new InvalidArgumentError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  const at = (node: Node | null | undefined) => {
    const offset = node?.range?.[0] ?? 0;
    const { line, col } = lines.linePos(offset);
    return `${file}:${line}:${col}`;
  };
  const first = doc.errors[0];
  if (first !== undefined) {
    const { line, col } = lines.linePos(first.pos[0]);
    throw new InvalidArgumentError(`${file}:${line}:${col}: ${first.message.split('\n')[0]}`);
  }
  const config: ProjectConfig = { file };
  if (doc.contents === null) return config;
  if (!isMap(doc.contents))
    throw new InvalidArgumentError(`${at(doc.contents)}: expected a map of settings`);
  const base = dirname(file);
  for (const pair of doc.contents.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
    const kind = key !== undefined && Object.hasOwn(KEYS, key) ? KEYS[key] : undefined;
    if (key === undefined || kind === undefined) {
      throw new InvalidArgumentError(
        `${at(pair.key)}: unknown key ${JSON.stringify(key ?? String(pair.key))}; allowed: ${Object.keys(KEYS).join(', ')}`,
      );
    }
    const value = pair.value as Node | null;
    if (kind === 'directory') {
      if (!isScalar(value) || typeof value.value !== 'string' || value.value === '')
        throw new InvalidArgumentError(
          `${at(value ?? pair.key)}: ${key} must be a directory path (a string)`,
        );
      config[key as 'plugins'] = resolve(base, value.value);
      continue;
    }
    const items = isSeq(value) ? value.items : isScalar(value) ? [value] : undefined;
    const modules = (items ?? []).map((item) =>
      isScalar(item) && typeof item.value === 'string' && item.value !== ''
        ? moduleFrom(base, item.value)
        : undefined,
    );
    if (items === undefined || modules.some((m) => m === undefined))
      throw new InvalidArgumentError(
        `${at(value ?? pair.key)}: require must be a list of module paths (strings)`,
      );
    config.require = modules as string[];
  }
  return config;
}

/** A module of `require:`: a path made absolute against the file's directory, or a package name. */
function moduleFrom(base: string, value: string): string {
  return value.startsWith('.') || isAbsolute(value) || /\.[cm]?[jt]s$/.test(value)
    ? resolve(base, value)
    : value;
}

/**
 * Where a workflow file argument is: as given when it exists, else under the configuration's
 * `workflows` directory (with `.yaml` added when it has no extension) when it is there.
 */
export function workflowFile(file: string, config: ProjectConfig | undefined): string {
  if (existsSync(file) || config?.workflows === undefined || isAbsolute(file)) return file;
  for (const candidate of [file, `${file}.yaml`, `${file}.yml`]) {
    const inside = join(config.workflows, candidate);
    if (existsSync(inside)) return inside;
  }
  return file;
}
