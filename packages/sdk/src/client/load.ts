import { readFile, stat } from 'node:fs/promises';
import { ValidationError } from '@weft/core';
import {
  DEFAULT_MAX_FILE_SIZE,
  formatDiagnostic,
  loadWorkflowSource,
  type LoadOptions,
  type WorkflowDefinition,
} from '@weft/engine';

/**
 * Reads and validates a workflow file (YAML or JSON). Throws a `VALIDATION` error whose message
 * lists every problem as `file:line:column: error: path: message` and whose `details.diagnostics`
 * holds them all.
 */
export async function loadWorkflowFile(
  file: string,
  options: LoadOptions = {},
): Promise<WorkflowDefinition[]> {
  const maxFileSize = options.maxFileSize ?? DEFAULT_MAX_FILE_SIZE;
  let bytes: Uint8Array;
  try {
    const info = await stat(file);
    if (info.size > maxFileSize) {
      throw new ValidationError(`${file} is ${info.size} bytes, over the limit of ${maxFileSize}`, {
        field: file,
        constraint: 'max_size',
      });
    }
    bytes = await readFile(file);
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    throw new ValidationError(`cannot read workflow file ${file}: ${(error as Error).message}`, {
      field: file,
      constraint: 'readable',
    });
  }
  const result = loadWorkflowSource(bytes, { ...options, file });
  if (!result.ok) {
    const errors = result.diagnostics.filter((d) => d.severity === 'error');
    throw new ValidationError(
      `${file} has ${errors.length} error${errors.length === 1 ? '' : 's'}:\n${errors.map(formatDiagnostic).join('\n')}`,
      {
        field: errors[0]?.path || file,
        constraint: errors[0]?.code ?? 'valid',
        diagnostics: result.diagnostics,
      },
    );
  }
  return result.workflows;
}

/** Loads the one workflow of a file, or the one named `name` (packages/sdk/README.md#running-workflows). */
export async function loadWorkflow(file: string, name?: string): Promise<WorkflowDefinition> {
  const workflows = await loadWorkflowFile(file, name === undefined ? {} : { workflow: name });
  if (workflows.length !== 1) {
    throw new ValidationError(`${file} holds ${workflows.length} workflows: name the one to load`, {
      field: 'name',
      constraint: 'required',
    });
  }
  return workflows[0]!;
}
