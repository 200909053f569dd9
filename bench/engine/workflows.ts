/** The workflows of the engine suite, shared with the process that measures a run's memory. */
import { loadWorkflowSource, type WorkflowDefinition } from '@weft/engine';

/** Items of the `for_each` rows. */
export const ITEMS = 100_000;

/** One action step over `inputs.items`, in order or concurrently. */
export function forEach(parallel: boolean): WorkflowDefinition {
  return load({
    workflows: [
      {
        name: 'each',
        inputs: { items: { type: 'array' } },
        steps: [
          {
            name: 'each',
            plugin: 'noop',
            action: 'run',
            for_each: '{{ inputs.items }}',
            parallel,
            input: { v: '{{ item }}' },
          },
        ],
      },
    ],
  });
}

/** The first workflow of a file given as an object. */
export function load(file: unknown): WorkflowDefinition {
  const result = loadWorkflowSource(JSON.stringify(file), { maxFileSize: 64 * 1024 * 1024 });
  if (!result.ok) throw new Error(result.diagnostics[0]?.message);
  return result.workflows[0]!;
}
