import { ConnectorRuntime } from '@weft/core';
import { TypeCompiler } from '@weft/core/typebox';
import { Reporter } from '../load/reporter.js';
import { checkRuntime } from './runtime-limits.js';

/** One thing wrong with a runtime block: the field (`runtime.resources.cpu`), constraint and message. */
export interface RuntimeProblem {
  field: string;
  constraint: string;
  message: string;
}

const check = TypeCompiler.Compile(ConnectorRuntime);

/**
 * Checks a runtime block received from elsewhere (a connector service's execute request): its
 * shape ({@link ConnectorRuntime}), then its quantities and the limits (docs/protocol.md#limits),
 * as workflow validation does. Answers the problems found, none when it is good; fields are
 * written `runtime.<path>`.
 */
export function runtimeProblems(value: unknown): RuntimeProblem[] {
  if (!check.Check(value)) {
    return [...check.Errors(value)].slice(0, 10).map((error) => ({
      field: ['runtime', ...error.path.split('/').filter((s) => s !== '')].join('.'),
      constraint: 'schema',
      message: error.message,
    }));
  }
  const reporter = new Reporter(undefined, undefined);
  checkRuntime(value, ['runtime'], reporter);
  return reporter.diagnostics.map((d) => ({
    field: d.path,
    constraint: d.code,
    message: d.message,
  }));
}
