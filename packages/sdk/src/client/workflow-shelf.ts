import { suggestion, ValidationError } from '@weft/core';
import { pickWorkflow, type WorkflowDefinition } from '@weft/engine';

/**
 * The workflows a {@link Weft} client has loaded, every version of each name: what `execute`
 * finds by name and what subworkflow steps pick a version from.
 */
export class WorkflowShelf {
  /** The versions of each workflow name, in the order they were loaded. */
  readonly byName = new Map<string, WorkflowDefinition[]>();

  /** Puts a loaded workflow, replacing the same version of the same name. */
  put(workflow: WorkflowDefinition): void {
    const versions = (this.byName.get(workflow.name) ?? []).filter(
      (w) => w.version !== workflow.version,
    );
    this.byName.set(workflow.name, [...versions, workflow]);
  }

  /** Adds a definition as given (another with the same version stays too). */
  add(workflow: WorkflowDefinition): void {
    this.byName.set(workflow.name, [...(this.byName.get(workflow.name) ?? []), workflow]);
  }

  /** The highest version of `name` in `range` (any when absent), if one is loaded. */
  find(name: string, range?: string): WorkflowDefinition | undefined {
    return pickWorkflow(this.byName.get(name) ?? [], name, range);
  }

  /** {@link find} of a name that must be loaded: `VALIDATION` with a did-you-mean otherwise. */
  require(name: string): WorkflowDefinition {
    const workflow = this.find(name);
    if (workflow) return workflow;
    throw new ValidationError(
      `no workflow named "${name}" is loaded${suggestion(name, this.byName.keys())}`,
      { field: 'name', constraint: 'loaded' },
    );
  }

  /** Every loaded version of every workflow. */
  everyVersion(): WorkflowDefinition[] {
    return [...this.byName.values()].flat();
  }
}
