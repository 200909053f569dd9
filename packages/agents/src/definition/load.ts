import { createRequire } from 'node:module';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ValidationError } from '@weft/core';
import {
  compileLoadOptions,
  parseWorkflowSource,
  SchemaChecker,
  type Diagnostic,
  type Reporter,
} from '@weft/engine';
import type { Ajv } from 'ajv';
import validVersion from 'semver/functions/valid.js';
import { AgentFile, type AgentDefinition } from './schema.js';
import { toolsOf } from './tools.js';

/** What {@link parseAgentSource} gives back. */
export interface LoadedAgent {
  ok: boolean;
  /** The definition, when the file has no errors. */
  agent?: AgentDefinition;
  diagnostics: Diagnostic[];
}

const checker = new SchemaChecker(AgentFile);
// Made on first use: an ajv instance compiles its meta-schema, which every importer would pay.
// ajv itself (some 60 modules) is required then too: it is CommonJS, so `require` loads it
// synchronously, and a process that compiles no schema here (`weft workflow validate` of a file
// without output schemas) never loads it.
const require = createRequire(import.meta.url);
let ajv: Ajv | undefined;

/**
 * Parses and checks the text of an agent definition file (YAML or JSON with a top-level
 * `agent`): the schema, with line and column, then what the schema cannot say (a semantic
 * version, `base_url` for `openai-compatible`, tools that name one target and are unique, an
 * `output_schema` that is JSON Schema, `pricing` behind a `maxCost`).
 */
export function parseAgentSource(text: string | Uint8Array, file?: string): LoadedAgent {
  const options = compileLoadOptions(file !== undefined ? { file } : {});
  const { value, reporter } = parseWorkflowSource(text, options);
  if (reporter.errorCount === 0) checker.check(AgentFile, value, [], reporter);
  if (reporter.errorCount === 0) checkAgent((value as AgentFile).agent, reporter);
  const ok = reporter.errorCount === 0;
  return {
    ok,
    ...(ok ? { agent: (value as AgentFile).agent } : {}),
    diagnostics: reporter.diagnostics,
  };
}

function checkAgent(agent: AgentDefinition, reporter: Reporter): void {
  const at = ['agent'];
  if (validVersion(agent.version) === null) {
    reporter.error(
      [...at, 'version'],
      'version',
      `expected a version such as 1.0.0, found "${agent.version}"`,
    );
  }
  if (agent.model.startsWith('openai-compatible:') && agent.base_url === undefined) {
    reporter.error(
      at,
      'required',
      'an openai-compatible model needs base_url (e.g. http://127.0.0.1:11434/v1)',
      {
        expected: 'a key "base_url"',
        found: 'none',
      },
    );
  }
  try {
    toolsOf(agent);
  } catch (error) {
    const details = (error as ValidationError).details as { field?: string };
    reporter.error(
      details.field?.split('.') ?? [...at, 'tools'],
      'tools',
      (error as Error).message,
    );
  }
  if (agent.output_schema !== undefined) {
    try {
      (ajv ??= new (require('ajv') as typeof import('ajv')).Ajv({
        strict: false,
        validateSchema: true,
      })).compile(agent.output_schema);
    } catch (error) {
      reporter.error(
        [...at, 'output_schema'],
        'schema',
        `not a valid JSON Schema: ${(error as Error).message}`,
      );
    }
  }
  if (agent.guardrails?.maxCost !== undefined && agent.pricing === undefined) {
    reporter.error(
      [...at, 'guardrails', 'maxCost'],
      'pricing',
      "maxCost needs the agent's pricing (input_per_million, output_per_million) to count cost",
    );
  }
}

/** Reads and checks one agent file; throws `VALIDATION` listing its errors. */
export async function loadAgentFile(file: string): Promise<AgentDefinition> {
  const loaded = parseAgentSource(await readFile(file), file);
  if (!loaded.ok) throw invalid(file, loaded.diagnostics);
  return loaded.agent!;
}

/**
 * Reads every `.yaml`, `.yml` and `.json` file of `dir` as an agent definition; throws
 * `VALIDATION` on the first file with errors. A missing directory is an error unless `missingOk`.
 */
export async function loadAgentDir(
  dir: string,
  options: { missingOk?: boolean } = {},
): Promise<AgentDefinition[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && options.missingOk) return [];
    throw new ValidationError(
      `cannot read the agents directory ${dir}: ${(error as Error).message}`,
      {
        field: 'agents',
        constraint: 'directory',
      },
    );
  }
  const agents: AgentDefinition[] = [];
  for (const name of names.sort()) {
    if (!/\.(ya?ml|json)$/.test(name)) continue;
    agents.push(await loadAgentFile(join(dir, name)));
  }
  return agents;
}

function invalid(file: string, diagnostics: Diagnostic[]): ValidationError {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const lines = errors.map(
    (d) =>
      `${d.file ?? file}${d.line !== undefined ? `:${d.line}:${d.column}` : ''}: ${d.path ? `${d.path}: ` : ''}${d.message}`,
  );
  return new ValidationError(`invalid agent definition ${file}:\n${lines.join('\n')}`, {
    field: errors[0]?.path || 'agent',
    constraint: errors[0]?.code ?? 'invalid',
  });
}
