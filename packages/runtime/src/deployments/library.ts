import type { WorkflowDefinition } from '@weft/engine';

/**
 * The workflows a run of `workflow` may call: itself first, then every deployed workflow its
 * `workflow:` steps name (nested blocks too), transitively. Names `lookup` does not know are
 * left out; the engine reports them when the step runs.
 */
export function libraryOf(
  workflow: WorkflowDefinition,
  lookup: (name: string) => WorkflowDefinition | undefined,
): WorkflowDefinition[] {
  const library = new Map<string, WorkflowDefinition>([[workflow.name, workflow]]);
  const queue = [workflow];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    for (const name of callsOf(next)) {
      if (library.has(name)) continue;
      const called = lookup(name);
      if (!called) continue;
      library.set(name, called);
      queue.push(called);
    }
  }
  return [...library.values()];
}

/**
 * Names of the workflows a deployed workflow's steps call, found once per definition (every
 * trigger of it asks: a webhook per request). Deployed definitions never change; a redeploy
 * is a new object.
 */
const calls = new WeakMap<WorkflowDefinition, readonly string[]>();
function callsOf(workflow: WorkflowDefinition): readonly string[] {
  let names = calls.get(workflow);
  if (!names) calls.set(workflow, (names = [...calledWorkflows(workflow.steps)]));
  return names;
}

/** Names of the workflows `workflow:` steps call, anywhere in `value` (steps and their blocks). */
function calledWorkflows(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) calledWorkflows(item, found);
  } else if (value !== null && typeof value === 'object') {
    const step = value as Record<string, unknown>;
    if (step['type'] === 'workflow' && typeof step['workflow'] === 'string') {
      found.add(step['workflow']);
    }
    for (const child of Object.values(step)) {
      if (child !== null && typeof child === 'object') calledWorkflows(child, found);
    }
  }
  return found;
}
