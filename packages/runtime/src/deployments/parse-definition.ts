import { MAX_NESTING_DEPTH, ValidationError, type DetectorNames } from '@weft/core';
import {
  compileLoadOptions,
  formatDiagnostic,
  isPlainObject,
  loadWorkflowSource,
  parseWorkflowSource,
  type Diagnostic,
  type WorkflowDefinition,
} from '@weft/engine';

/** Names a deployed workflow cannot take: `/workflows/executions` is the executions API. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(['executions']);

/** A definition that passed the engine's validator. */
export interface ValidDefinition {
  workflow: WorkflowDefinition;
  /** The definition as sent (stored and shown by `GET /workflows/{name}`). */
  raw: Record<string, unknown>;
  warnings: string[];
}

/**
 * Validates one workflow definition (the object that sits inside `workflows`) with the engine's
 * loader, as if it were a file holding only it. `knownWorkflows` are deployed names a subworkflow
 * step may call; `detectors` are the guardrail detectors this server offers by name (a workflow
 * choosing another is refused). Throws `VALIDATION` with every diagnostic in
 * `details.diagnostics`.
 */
export function validateDefinition(
  raw: unknown,
  knownWorkflows: readonly string[],
  detectors?: DetectorNames,
): ValidDefinition {
  if (!isPlainObject(raw)) {
    throw new ValidationError('send one workflow definition: an object with name and steps', {
      field: 'body',
      constraint: 'type',
    });
  }
  if (!Array.isArray(raw['steps'])) {
    // Checked here too: the engine's loader throws on a definition without a steps list.
    throw new ValidationError('invalid workflow: steps must be a list of steps', {
      field: 'steps',
      constraint: raw['steps'] === undefined ? 'required' : 'type',
    });
  }
  const result = loadWorkflowSource(JSON.stringify({ workflows: [raw] }), {
    knownWorkflows,
    ...(detectors ? { detectors } : {}),
  });
  const diagnostics = result.diagnostics.map(relative);
  if (!result.ok) {
    const first = diagnostics.find((d) => d.severity === 'error')!;
    throw new ValidationError(`invalid workflow: ${formatDiagnostic(first)}`, {
      field: first.path || 'body',
      constraint: first.code,
      diagnostics: diagnostics.map((d) => ({
        severity: d.severity,
        path: d.path,
        code: d.code,
        message: d.message,
      })),
    });
  }
  const workflow = result.workflows[0]!;
  if (RESERVED_NAMES.has(workflow.name)) {
    throw new ValidationError(
      `the workflow name "${workflow.name}" is reserved (GET /workflows/${workflow.name} is the executions API); choose another name`,
      { field: 'name', constraint: 'reserved', reserved: [...RESERVED_NAMES] },
    );
  }
  return {
    workflow,
    raw,
    // A list of warnings: each says where and what, not again that it is a warning.
    warnings: diagnostics.filter((d) => d.severity === 'warning').map(formatWarning),
  };
}

/** Parses a JSON or YAML body (hardened: aliases, depth, size, duplicate keys) into plain data. */
export function parseDefinitionBody(bytes: Uint8Array, maxSize: number): unknown {
  const { value, reporter } = parseWorkflowSource(
    bytes,
    compileLoadOptions({ maxFileSize: maxSize }),
  );
  const error = reporter.diagnostics.find((d) => d.severity === 'error');
  if (value === undefined || error) {
    throw new ValidationError(
      `the body is not valid JSON or YAML: ${error ? formatDiagnostic(error) : 'empty'}`,
      {
        field: 'body',
        constraint: error?.code ?? 'syntax',
        ...(error?.code === 'too_deep' ? { limit: MAX_NESTING_DEPTH } : {}),
      },
    );
  }
  return value;
}

function relative(d: Diagnostic): Diagnostic {
  const path = d.path.replace(/^workflows\[0\]\.?/, '');
  const { line: _l, column: _c, file: _f, ...rest } = d;
  return { ...rest, path };
}

/** A warning without its severity (the list says it): `<path>: <message>`. */
function formatWarning(d: Diagnostic): string {
  return d.path === '' ? d.message : `${d.path}: ${d.message}`;
}
