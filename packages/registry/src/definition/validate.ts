import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import semver from 'semver';
import { didYouMean, PluginDefinition } from '@weft/core';
import { jsonSchemaProblem } from './json-schema-check.js';
import type { DefinitionProblem } from './parse.js';
import { licenseProblem } from '../rules/license.js';
import { parseMemory, slugProblem, versionProblem } from '../rules/names.js';

/** The definition schema, compiled when a definition is first checked (not at import). */
let checkShape: ValidateFunction<PluginDefinition> | undefined;
const TOP_LEVEL_KEYS = Object.keys(PluginDefinition.properties);

/** A validated definition, or every problem found. */
export type ValidationResult =
  { ok: true; definition: PluginDefinition } | { ok: false; problems: DefinitionProblem[] };

/** Largest memory a plugin may ask for (docs/protocol.md#limits): 4 GB. */
const MAX_MEMORY_BYTES = 4 * 1000 ** 3;

/**
 * Checks a parsed plugin definition: every field (docs/registry.md#plugin-definitions), slug and semver rules, the connector
 * block agreeing with slug and version, action names unique, and every action's input and output
 * schema a valid JSON Schema. Reports all problems at once.
 */
export function validateDefinition(value: unknown): ValidationResult {
  checkShape ??= new Ajv({ allErrors: true, strict: false, validateFormats: false }).compile(
    PluginDefinition,
  );
  if (!checkShape(value)) {
    const problems = dedupe((checkShape.errors ?? []).map(fromAjvError));
    return { ok: false, problems: problems.map((p) => refine(p, value)) };
  }
  const definition = value;
  const problems: DefinitionProblem[] = [];
  const add = (field: string, constraint: string, message: string) =>
    problems.push({ field, constraint, message });
  const slug = slugProblem(definition.slug);
  if (slug) add('slug', slug.constraint, slug.message);
  const version = versionProblem(definition.version);
  if (version) add('version', version.constraint, version.message);
  const license = licenseProblem(definition.license);
  if (license) add('license', license.constraint, license.message);
  if (definition.connector) {
    if (definition.connector.name !== definition.slug) {
      add(
        'connector.name',
        'matches_slug',
        `connector.name must equal the slug "${definition.slug}"`,
      );
    }
    if (definition.connector.version !== definition.version) {
      add(
        'connector.version',
        'matches_version',
        `connector.version must equal the version "${definition.version}"`,
      );
    }
  }
  const names = new Set<string>();
  definition.actions.forEach((action, index) => {
    if (names.has(action.name)) {
      add(`actions[${index}].name`, 'unique', `action "${action.name}" is defined twice`);
    }
    names.add(action.name);
    for (const key of ['input_schema', 'output_schema'] as const) {
      const reason = action[key] === undefined ? undefined : jsonSchemaProblem(action[key]);
      if (reason)
        add(`actions[${index}].${key}`, 'json_schema', `not a valid JSON Schema: ${reason}`);
    }
  });
  const memory = definition.runtime?.memory;
  if (memory !== undefined && (parseMemory(memory) ?? Infinity) > MAX_MEMORY_BYTES) {
    add('runtime.memory', 'maximum', `memory ${memory} is over the limit of 4GB`);
  }
  for (const [dependency, range] of Object.entries(definition.dependencies ?? {})) {
    if (semver.validRange(range) === null) {
      add(
        `dependencies.${dependency}`,
        'semver_range',
        `"${range}" is not a semver range such as ^1.2.0`,
      );
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, definition };
}

/** `/actions/0/name` -> `actions[0].name`. */
function toField(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce(
      (out, part) => (/^\d+$/.test(part) ? `${out}[${part}]` : out ? `${out}.${part}` : part),
      '',
    );
}

function fromAjvError(error: ErrorObject): DefinitionProblem {
  const at = toField(error.instancePath);
  const join = (key: string) => (at ? `${at}.${key}` : key);
  const schema = error.parentSchema as { 'x-expected'?: string } | undefined;
  switch (error.keyword) {
    case 'required': {
      const key = String(error.params['missingProperty']);
      return { field: join(key), constraint: 'required', message: `${join(key)} is required` };
    }
    case 'additionalProperties': {
      const key = String(error.params['additionalProperty']);
      const hint = at === '' ? didYouMean(key, TOP_LEVEL_KEYS) : undefined;
      const suffix = hint ? ` (did you mean "${hint}"?)` : '';
      return {
        field: join(key),
        constraint: 'unknown_key',
        message: `unknown key "${key}"${suffix}`,
      };
    }
    default: {
      const expected = schema?.['x-expected'];
      const message = expected ? `expected ${expected}` : (error.message ?? 'is invalid');
      return { field: at, constraint: error.keyword, message: `${at || 'definition'}: ${message}` };
    }
  }
}

/** Replaces the generic pattern message of a slug or version with the precise one. */
function refine(problem: DefinitionProblem, value: unknown): DefinitionProblem {
  const record = (typeof value === 'object' && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  const given = record[problem.field];
  if (typeof given !== 'string') return problem;
  const better =
    problem.field === 'slug'
      ? slugProblem(given)
      : problem.field === 'version'
        ? versionProblem(given)
        : undefined;
  return better ? { field: problem.field, ...better } : problem;
}

/** Union schemas report one error per branch; keep the first per field. */
function dedupe(problems: DefinitionProblem[]): DefinitionProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => !seen.has(p.field) && seen.add(p.field));
}
