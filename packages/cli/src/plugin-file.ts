import { extname } from 'node:path';
import { checkAgentDefinition } from '@weft/agents';
import {
  agentDefinition,
  isAgentSubmission,
  parseDefinitionBytes,
  validateDefinition,
  type DefinitionFormat,
  type DefinitionProblem,
} from '@weft/registry/definitions';
import { ValidationError, type PluginDefinition, type StoredDefinition } from '@weft/core';
import type { Diagnostic } from '@weft/engine';
import { LocalInvoker } from '@weft/sdk';
import type { Io } from './io.js';
import { readInputFile } from './read-input.js';

/** Largest plugin definition file: the registry's body limit, 1 MiB. */
export const MAX_DEFINITION_BYTES = 1024 * 1024;

/** A definition file read and checked locally: a plugin, or an agent (a top-level `agent`). */
export type LoadedDefinition =
  | {
      ok: true;
      kind: 'plugin';
      bytes: Uint8Array;
      format: DefinitionFormat;
      definition: PluginDefinition;
    }
  | {
      ok: true;
      kind: 'agent';
      bytes: Uint8Array;
      format: DefinitionFormat;
      /** What the registry stores of it: slug `<namespace>-<name>`, the agent in `agent`. */
      definition: StoredDefinition;
    }
  | { ok: false; problems: DefinitionProblem[] };

/** `.json` files are JSON; everything else is YAML. */
export function formatOf(file: string): DefinitionFormat {
  return extname(file).toLowerCase() === '.json' ? 'json' : 'yaml';
}

/**
 * Reads, parses and validates a plugin or agent definition file with the registry's own rules and, when it
 * has a `connector` block, with the very check `--plugins` and `loadConnectors` run (templates
 * read `inputs` and `env`, the fields each kind needs, `${VAR}` set in this environment): what
 * passes here loads in a local run.
 */
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
  if (isAgentSubmission(parsed.value)) {
    // The registry's own check of agent definitions (the agents' schema, then the slug).
    const agent = agentDefinition(checkAgentDefinition, read.bytes, format, '');
    if (!agent.ok) return { ok: false, problems: agent.problems };
    return { ok: true, kind: 'agent', bytes: read.bytes, format, definition: agent.definition };
  }
  const checked = validateDefinition(parsed.value);
  if (!checked.ok) return { ok: false, problems: checked.problems };
  if (checked.definition.connector !== undefined) {
    const problems = connectorProblems(read.bytes, file);
    if (problems.length > 0) return { ok: false, problems };
  }
  return { ok: true, kind: 'plugin', bytes: read.bytes, format, definition: checked.definition };
}

/** Prints problems as `file:line:column: error: field: message`. */
export function printProblems(io: Io, file: string, problems: readonly DefinitionProblem[]): void {
  for (const p of problems) {
    const where = [file, p.line, p.column].filter((x) => x !== undefined).join(':');
    io.err(`${where}: error: ${p.field ? `${p.field}: ` : ''}${p.message}\n`);
  }
}

/**
 * What keeps downloaded definition bytes from loading in a local run (`--plugins`): the SDK's
 * connector check when they hold a `connector` block; empty when nothing does.
 */
export function localLoadProblems(bytes: Uint8Array, file: string): DefinitionProblem[] {
  const parsed = parseDefinitionBytes(bytes, formatOf(file));
  if (!parsed.ok) return parsed.problems;
  const value = parsed.value as { connector?: unknown } | null;
  return typeof value === 'object' && value?.connector !== undefined
    ? connectorProblems(bytes, file)
    : [];
}

/** What keeps downloaded agent definition bytes from loading in a local run (`--agents`). */
export function agentLoadProblems(bytes: Uint8Array): DefinitionProblem[] {
  const checked = checkAgentDefinition(bytes);
  return checked.ok ? [] : checked.problems;
}

/** What loading the definition as a connector (the SDK's check) finds wrong; empty when none. */
function connectorProblems(bytes: Uint8Array, file: string): DefinitionProblem[] {
  try {
    new LocalInvoker({ environment: process.env }).registerConnectorSource(bytes, file);
    return [];
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const diagnostics = (error.details as { diagnostics?: Diagnostic[] }).diagnostics;
    if (diagnostics === undefined)
      return [{ field: '', constraint: 'connector', message: error.message }];
    return diagnostics.map((d) => ({
      field: d.path,
      constraint: d.code,
      message: d.message,
      ...(d.line !== undefined ? { line: d.line, column: d.column } : {}),
    }));
  }
}
