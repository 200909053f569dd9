import { loadWorkflowSource, type LoadResult } from '../load/load-workflows.js';
import type { LoadOptions } from '../load/options.js';

/** Loads a YAML text as `test.yaml`. */
export function load(source: string | Uint8Array, options: LoadOptions = {}): LoadResult {
  return loadWorkflowSource(source, { file: 'test.yaml', ...options });
}

/** The error messages of a load, as `path: message`. */
export function errors(result: LoadResult): string[] {
  return result.diagnostics
    .filter((d) => d.severity === 'error')
    .map((d) => (d.path === '' ? d.message : `${d.path}: ${d.message}`));
}

/** The warning messages of a load, as `path: message`. */
export function warnings(result: LoadResult): string[] {
  return result.diagnostics
    .filter((d) => d.severity === 'warning')
    .map((d) => (d.path === '' ? d.message : `${d.path}: ${d.message}`));
}

/** A one-workflow file with the given steps block (YAML, indented as under `steps:`). */
export function withSteps(steps: string, extra = ''): string {
  return `workflows:\n  - name: w\n${extra}    steps:\n${steps}`;
}
