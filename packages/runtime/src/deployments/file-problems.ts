import { formatDiagnostic, loadWorkflowSource } from '@weft/engine';

/** What {@link fileProblems} checks the file with. */
export interface FileProblemOptions {
  maxFileSize: number;
  /** Workflows deployed already: a subworkflow step naming one is no problem. */
  knownWorkflows: readonly string[];
}

/**
 * The problems of a workflow file whose deployment failed with `error`, one line each as `weft
 * workflow validate` prints them: `file:line:column: error: path: message`. The file is loaded
 * again for its positions; when that finds no error (the deployment failed on something only
 * the server checks), the error's own diagnostics, named by file and path. Empty when there is
 * nothing to list (the caller then says the error's message).
 */
export function fileProblems(
  bytes: Uint8Array,
  file: string,
  error: unknown,
  options: FileProblemOptions,
): string[] {
  const loaded = loadWorkflowSource(bytes, {
    file,
    maxFileSize: options.maxFileSize,
    knownWorkflows: options.knownWorkflows,
    detectors: 'any',
  });
  const located = loaded.diagnostics.filter((d) => d.severity === 'error');
  if (located.length > 0) return located.map(formatDiagnostic);
  const details = (error as { details?: { diagnostics?: unknown } } | undefined)?.details;
  const listed = Array.isArray(details?.diagnostics) ? details.diagnostics : [];
  return listed
    .filter(
      (d): d is { severity: 'error'; path: string; message: string; code: string } =>
        typeof d === 'object' &&
        d !== null &&
        (d as { severity?: unknown }).severity === 'error' &&
        typeof (d as { message?: unknown }).message === 'string',
    )
    .map((d) => formatDiagnostic({ ...d, path: String(d.path ?? ''), file }));
}
