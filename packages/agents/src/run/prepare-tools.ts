import { createRequire } from 'node:module';
import { ValidationError, WeftError, type ActionCall } from '@weft/core';
import type { Ajv, ValidateFunction } from 'ajv';
import type { ToolSpec } from '../definition/tools.js';
import type { PreparedTool } from './contract.js';

/** What an action declares, as a tool needs it. */
export interface ActionDescription {
  /** JSON Schema of the action's input. */
  readonly inputSchema: Record<string, unknown>;
  readonly description?: string | undefined;
}

/**
 * Finds the input schema (and description) of an action; undefined when it is not known. A
 * lookup that knows why (a remote source that cannot be read, a plugin that is not published)
 * throws a {@link WeftError} saying so: the step fails with that code, the tool named.
 */
export type ActionLookup = (
  target: ActionCall['target'],
  action: string,
) => ActionDescription | undefined | Promise<ActionDescription | undefined>;

// Made on first use: an ajv instance compiles its meta-schema, which every importer would pay.
// ajv itself (some 60 modules) is required then too: it is CommonJS, so `require` loads it
// synchronously, and a process that compiles no schema here (`weft workflow validate` of a file
// without output schemas) never loads it.
const require = createRequire(import.meta.url);
let ajv: Ajv | undefined;
const compiled = new WeakMap<object, ValidateFunction>();

/**
 * The tools of an agent with their schemas and compiled checks. Fails closed: a tool whose
 * action has no known input schema cannot have its arguments checked, so it is a `VALIDATION`
 * error before the model is called.
 */
export async function prepareTools(
  specs: readonly ToolSpec[],
  lookup: ActionLookup,
): Promise<PreparedTool[]> {
  const prepared: PreparedTool[] = [];
  for (const spec of specs) {
    let described: ActionDescription | undefined;
    try {
      described = await lookup(spec.target, spec.action);
    } catch (error) {
      if (!(error instanceof WeftError)) throw error;
      throw new WeftError(
        error.code,
        `tool ${spec.name}: ${error.message}`,
        { ...error.details, tool: spec.name },
        { cause: error },
      );
    }
    if (!described) {
      const owner = spec.target.kind === 'plugin' ? spec.target.slug : spec.target.ref;
      throw new ValidationError(
        `tool ${spec.name}: no input_schema is known for ${owner} action "${spec.action}" (load its connector definition: --plugins <dir>)`,
        { field: 'agent.tools', constraint: 'input_schema', tool: spec.name },
      );
    }
    let validate = compiled.get(described.inputSchema);
    if (!validate) {
      validate = (ajv ??= new (require('ajv') as typeof import('ajv')).Ajv({
        strict: false,
        allErrors: true,
      })).compile(described.inputSchema);
      compiled.set(described.inputSchema, validate);
    }
    prepared.push({
      spec,
      description: spec.description ?? described.description ?? spec.action,
      inputSchema: described.inputSchema,
      validate,
    });
  }
  return prepared;
}

/** The ajv errors of a failed check as one line for the model. */
export function describeInvalid(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '(arguments)'} ${e.message ?? 'is invalid'}`)
    .join('; ');
}
