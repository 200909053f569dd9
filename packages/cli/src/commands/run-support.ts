import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { InvalidArgumentError } from 'commander';
import type { Weft } from '@weft/sdk';

/** Collects repeatable `--input key=value` flags; values that are JSON are parsed. */
export function collectInput(
  value: string,
  previous: Record<string, unknown>,
): Record<string, unknown> {
  const at = value.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError('expected key=value');
  const key = value.slice(0, at);
  if (Object.hasOwn(previous, key)) throw new InvalidArgumentError(`input "${key}" is given twice`);
  const text = value.slice(at + 1);
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: the string as written
  }
  const out = { ...previous };
  Object.defineProperty(out, key, {
    value: parsed,
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return out;
}

/** Parses a JSON argument, or the JSON file named after `@` (at most 1 MiB). */
export function parseJsonArgument(value: string): unknown {
  let text = value;
  if (value.startsWith('@')) {
    const file = value.slice(1);
    try {
      if (statSync(file).size > 1024 * 1024)
        throw new InvalidArgumentError(`${file} is over 1 MiB`);
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if (error instanceof InvalidArgumentError) throw error;
      throw new InvalidArgumentError(`cannot read ${file}: ${(error as Error).message}`);
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InvalidArgumentError(`expected JSON: ${(error as Error).message}`);
  }
}

/** Collects a repeatable string flag. */
export function collectList(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/**
 * Imports each `--require` module and hands it the SDK client: its default export (or a
 * `register` export) is called with the {@link Weft} instance, and registers handlers on it.
 */
export async function requireModules(weft: Weft, modules: string[]): Promise<void> {
  for (const module of modules) {
    const url =
      module.startsWith('.') || module.startsWith('/')
        ? pathToFileURL(resolve(module)).href
        : module;
    const loaded = (await import(url)) as { default?: unknown; register?: unknown };
    const register = typeof loaded.default === 'function' ? loaded.default : loaded.register;
    if (typeof register !== 'function') {
      throw new InvalidArgumentError(
        `${module} must export a default function (weft) => void that registers its handlers`,
      );
    }
    await (register as (w: Weft) => unknown)(weft);
  }
}
