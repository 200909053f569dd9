import type { InputSpec, InputType, Step, StepType, Workflow } from '@weft/core';

/** A step after loading: `id` folded into `name`, `type` inferred, children normalized. */
export type StepDefinition = Omit<Step, 'id' | 'name' | 'type' | 'parallel'> & {
  name: string;
  type: StepType;
  parallel?: StepDefinition[] | boolean;
};

/** An input after loading: `type` and `required` filled in. */
export type InputDefinition = InputSpec & { type: InputType; required: boolean };

/** A validated workflow with its defaults applied (`version` 1.0.0, `required` false). */
export type WorkflowDefinition = Omit<Workflow, 'version' | 'steps' | 'inputs'> & {
  version: string;
  inputs: Record<string, InputDefinition>;
  steps: StepDefinition[];
};

/** Default version of a workflow (docs/workflow-language.md#workflow). */
export const DEFAULT_WORKFLOW_VERSION = '1.0.0';

/** A step together with where it sits: its path in the file and the blocks that hold it. */
export interface StepVisit {
  step: StepDefinition;
  /** Path in the file, e.g. `['workflows', 0, 'steps', 2, 'parallel', 1]`. */
  path: (string | number)[];
  /** The parallel blocks holding this step, outermost first (empty at top level). */
  parents: StepDefinition[];
  /** Index of the top-level step this step is or sits in. */
  order: number;
}

/** Every step of a workflow in file order, parallel children right after their block. */
export function listSteps(
  workflow: Pick<WorkflowDefinition, 'steps'>,
  base: (string | number)[] = [],
): StepVisit[] {
  const out: StepVisit[] = [];
  const visit = (
    steps: StepDefinition[],
    path: (string | number)[],
    parents: StepDefinition[],
    order: number | undefined,
  ): void => {
    steps.forEach((step, index) => {
      const here = [...path, index];
      const top = order ?? index;
      out.push({ step, path: here, parents, order: top });
      if (Array.isArray(step.parallel))
        visit(step.parallel, [...here, 'parallel'], [...parents, step], top);
    });
  };
  visit(workflow.steps, [...base, 'steps'], [], undefined);
  return out;
}

/** The kind of a step as written: `type` when given, else inferred from its fields. */
export function inferStepType(step: Step): StepType | undefined {
  if (step.type !== undefined) return step.type;
  if (Array.isArray(step.parallel)) return 'parallel';
  if (step.agent !== undefined) return 'agent';
  if (step.workflow !== undefined) return 'workflow';
  if (step.plugin !== undefined || step.connector !== undefined || step.action !== undefined) {
    return 'action';
  }
  return undefined;
}

/** Applies the defaults (docs/workflow-language.md#workflow) and folds step `id` into `name`; copies, never mutates. */
export function normalizeWorkflow(raw: Workflow): WorkflowDefinition {
  const inputs: Record<string, InputDefinition> = {};
  for (const [name, spec] of Object.entries(raw.inputs ?? {})) {
    inputs[name] = { ...spec, type: spec.type ?? 'string', required: spec.required ?? false };
  }
  return {
    ...raw,
    version: raw.version ?? DEFAULT_WORKFLOW_VERSION,
    inputs,
    steps: raw.steps.map(normalizeStep),
  };
}

function normalizeStep(raw: Step): StepDefinition {
  const { id, name, parallel, ...rest } = raw;
  const step: StepDefinition = {
    ...rest,
    name: name ?? id ?? '',
    type: inferStepType(raw) ?? 'action',
  };
  if (Array.isArray(parallel)) step.parallel = (parallel as Step[]).map(normalizeStep);
  else if (parallel !== undefined) step.parallel = parallel;
  return step;
}
