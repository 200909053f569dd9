import { extname } from 'node:path';
import {
  parseDefinitionBytes,
  validateDefinition,
  type DefinitionFormat,
  type DefinitionProblem,
} from '@weft/server';
import type { PluginDefinition } from '@weft/core';
import type { Io } from './io.js';
import { readInputFile } from './read-input.js';

/** Largest plugin definition file: the registry's body limit, 1 MiB. */
export const MAX_DEFINITION_BYTES = 1024 * 1024;

/** A definition file read and checked locally. */
export type LoadedDefinition =
  | { ok: true; bytes: Uint8Array; format: DefinitionFormat; definition: PluginDefinition }
  | { ok: false; problems: DefinitionProblem[] };

/** `.json` files are JSON; everything else is YAML. */
export function formatOf(file: string): DefinitionFormat {
  return extname(file).toLowerCase() === '.json' ? 'json' : 'yaml';
}

/** Reads, parses and validates a plugin definition file with the registry's own rules. */
export async function loadDefinitionFile(file: string): Promise<LoadedDefinition> {
  const read = await readInputFile(file, MAX_DEFINITION_BYTES);
  if (!read.ok) {
    return {
      ok: false,
      problems: [{ field: '', constraint: read.diagnostic.code, message: read.diagnostic.message }],
    };
  }
  const format = formatOf(file);
  const parsed = parseDefinitionBytes(read.bytes, format);
  if (!parsed.ok) return { ok: false, problems: parsed.problems };
  const checked = validateDefinition(parsed.value);
  if (!checked.ok) return { ok: false, problems: checked.problems };
  return { ok: true, bytes: read.bytes, format, definition: checked.definition };
}

/** Prints problems as `file:line:column: error: field: message`. */
export function printProblems(io: Io, file: string, problems: readonly DefinitionProblem[]): void {
  for (const p of problems) {
    const where = [file, p.line, p.column].filter((x) => x !== undefined).join(':');
    io.err(`${where}: error: ${p.field ? `${p.field}: ` : ''}${p.message}\n`);
  }
}
