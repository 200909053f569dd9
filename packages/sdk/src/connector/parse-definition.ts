import { ConnectorDefinition, ValidationError } from '@weft/core';
import {
  compileLoadOptions,
  formatDiagnostic,
  parseWorkflowSource,
  Reporter,
  SchemaChecker,
  sortDiagnostics,
} from '@weft/engine';
import { checkDefinitionMeaning } from './check-definition.js';
import { interpolateEnvironment, type Environment } from './interpolate-env.js';

/** Options of {@link parseConnectorDefinition}. */
export interface ParseDefinitionOptions {
  /** File name used in messages (`file:line:column`). */
  file?: string;
  /** Variables for `${VAR}` interpolation. */
  environment: Environment;
  /** Largest accepted file in bytes. Default 1 MiB. */
  maxFileSize?: number;
}

const checker = new SchemaChecker(ConnectorDefinition);

/**
 * Reads a connector definition from the text of a YAML or JSON file, or from an object, and
 * checks it: hostile-input protections of workflow files (size, duplicate keys, alias bombs,
 * custom tags, `__proto__`), `${VAR}` interpolation, the schema of
 * {@link ConnectorDefinition} (unknown keys with a did-you-mean) and the rules between fields.
 * Throws a `ValidationError` listing every problem as `file:line:column: error: path: message`;
 * `details.field` and `details.constraint` are those of the first problem, `details.diagnostics`
 * holds them all.
 */
export function parseConnectorDefinition(
  input: string | Uint8Array | object,
  options: ParseDefinitionOptions,
): { definition: ConnectorDefinition; reporter: Reporter } {
  let raw: unknown;
  let reporter: Reporter;
  if (typeof input === 'string' || input instanceof Uint8Array) {
    const loadOptions = compileLoadOptions({
      ...(options.file !== undefined ? { file: options.file } : {}),
      ...(options.maxFileSize !== undefined ? { maxFileSize: options.maxFileSize } : {}),
    });
    const parsed = parseWorkflowSource(input, loadOptions);
    raw = parsed.value;
    reporter = parsed.reporter;
  } else {
    raw = input;
    reporter = new Reporter(options.file, undefined);
  }
  throwIfErrors(reporter);
  const value = interpolateEnvironment(raw, options.environment, reporter);
  throwIfErrors(reporter);
  checker.check(ConnectorDefinition, value, [], reporter);
  throwIfErrors(reporter);
  const definition = value as ConnectorDefinition;
  checkDefinitionMeaning(definition, reporter);
  throwIfErrors(reporter);
  return { definition, reporter };
}

/** Throws the `ValidationError` of {@link parseConnectorDefinition} when `reporter` has errors. */
export function throwIfErrors(reporter: Reporter): void {
  if (reporter.errorCount === 0) return;
  const errors = sortDiagnostics(reporter.diagnostics.filter((d) => d.severity === 'error'));
  const first = errors[0]!;
  const lines = errors.map((d) => formatDiagnostic(d));
  const head =
    errors.length === 1
      ? 'invalid connector definition'
      : `invalid connector definition (${errors.length} errors)`;
  throw new ValidationError(`${head}:\n${lines.join('\n')}`, {
    field: first.path === '' ? 'connector' : first.path,
    constraint: first.code,
    ...(first.file !== undefined ? { file: first.file } : {}),
    ...(first.line !== undefined ? { line: first.line, column: first.column } : {}),
    diagnostics: errors,
  });
}
