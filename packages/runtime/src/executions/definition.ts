import { MAX_NESTING_DEPTH, ValidationError, type DetectorNames } from '@weft/core';
import { formatDiagnostic, loadWorkflowSource, type WorkflowDefinition } from '@weft/engine';

/** A workflow ready to run, with the workflows its subworkflow steps may call. */
export interface ExecutableWorkflow {
  workflow: WorkflowDefinition;
  /** Every workflow of the same file (the one that runs included). */
  library: WorkflowDefinition[];
}

/** What a request names to run. */
export interface WorkflowSource {
  workflow?: string | Record<string, unknown> | undefined;
  workflow_file?: string | undefined;
  workflow_name?: string | undefined;
}

const CACHE_SIZE = 256;
const cache = new Map<string, ExecutableWorkflow[]>();

/**
 * Loads and validates the workflow of a request: `workflow` (file text, a parsed file, or one
 * definition) or `workflow_file` (file text), then picks `workflow_name`. Throws `VALIDATION`
 * naming the field and listing every problem of the file. `detectors` are the guardrail
 * detectors the runtime offers by name. Parsed files are cached by text.
 */
export function loadRequestedWorkflow(
  source: WorkflowSource,
  detectors: DetectorNames = {},
): ExecutableWorkflow {
  const { workflow, workflow_file: file, workflow_name: name } = source;
  if (workflow !== undefined && file !== undefined) {
    throw new ValidationError('send either workflow or workflow_file, not both', {
      field: 'workflow_file',
      constraint: 'exclusive',
    });
  }
  if (workflow === undefined && file === undefined) {
    throw new ValidationError(
      'the request needs the workflow to run: workflow (a definition or file) or workflow_file (file text)',
      { field: 'workflow', constraint: 'required' },
    );
  }
  const field = file !== undefined ? 'workflow_file' : 'workflow';
  const text =
    typeof (file ?? workflow) === 'string'
      ? ((file ?? workflow) as string)
      : JSON.stringify(
          Array.isArray((workflow as Record<string, unknown>)['workflows'])
            ? workflow
            : { workflows: [workflow] },
        );
  const library = loadText(text, field, detectors);
  return pick(library, name);
}

/** Rebuilds a stored definition (`{workflow, library}` as the runtime stored it). */
export function restoreWorkflow(stored: {
  workflow: unknown;
  library: unknown[];
}): ExecutableWorkflow {
  const workflow = stored.workflow as WorkflowDefinition;
  const library = stored.library as WorkflowDefinition[];
  return { workflow, library: library.length > 0 ? library : [workflow] };
}

function loadText(text: string, field: string, detectors: DetectorNames): ExecutableWorkflow[] {
  const key = `${JSON.stringify(detectors)}\n${text}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const result = loadWorkflowSource(text, { file: field, detectors });
  if (!result.ok) {
    const errors = result.diagnostics.filter((d) => d.severity === 'error');
    const first = errors[0];
    throw new ValidationError(
      `${field} is not a valid workflow file: ${first ? formatDiagnostic(first) : 'unknown problem'}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`,
      {
        field: first?.path ? `${field}.${first.path}` : field,
        constraint: first?.code ?? 'valid',
        ...(first?.code === 'too_deep' ? { limit: MAX_NESTING_DEPTH } : {}),
        problems: errors.slice(0, 50).map((d) => ({
          path: d.path,
          code: d.code,
          message: d.message,
          ...(d.line !== undefined ? { line: d.line, column: d.column } : {}),
        })),
      },
    );
  }
  const library = result.workflows.map((workflow) => ({
    workflow,
    library: result.workflows,
  }));
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(key, library);
  return library;
}

function pick(library: ExecutableWorkflow[], name: string | undefined): ExecutableWorkflow {
  if (name === undefined) {
    if (library.length === 1) return library[0]!;
    throw new ValidationError(
      `the file holds ${library.length} workflows (${library.map((w) => w.workflow.name).join(', ')}); name the one to run with workflow_name`,
      { field: 'workflow_name', constraint: 'required' },
    );
  }
  const found = library.find((w) => w.workflow.name === name);
  if (!found) {
    throw new ValidationError(
      `the file has no workflow named "${name}"; it has ${library.map((w) => `"${w.workflow.name}"`).join(', ')}`,
      { field: 'workflow_name', constraint: 'exists' },
    );
  }
  return found;
}
