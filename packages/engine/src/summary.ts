import { listSteps, type WorkflowDefinition } from './model.js';

/** What `weft workflow list` shows of a workflow. */
export interface WorkflowSummary {
  name: string;
  version: string;
  description: string;
  /** Trigger types in file order, without repeats. */
  triggers: string[];
  /** Number of steps, parallel children included. */
  steps: number;
  inputs: string[];
  outputs: string[];
}

/** Summarizes a loaded workflow. */
export function summarizeWorkflow(workflow: WorkflowDefinition): WorkflowSummary {
  return {
    name: workflow.name,
    version: workflow.version,
    description: workflow.description ?? '',
    triggers: [...new Set((workflow.triggers ?? []).map((t) => t.type))],
    steps: listSteps(workflow).length,
    inputs: Object.keys(workflow.inputs),
    outputs: Object.keys(workflow.outputs ?? {}),
  };
}
