import type { Path } from '../diagnostics.js';
import type { Reporter } from '../load/reporter.js';
import type { CompiledLoadOptions } from '../load/options.js';
import type { StepVisit, WorkflowDefinition } from '../model.js';

/** What every semantic check of one workflow gets. */
export interface WorkflowContext {
  reporter: Reporter;
  /** The workflow, defaults applied. */
  workflow: WorkflowDefinition;
  /** Its path in the file: `['workflows', i]`. */
  path: Path;
  /** Its steps in file order (see `listSteps`). */
  steps: StepVisit[];
  /** Every schema-valid workflow of the file, by name. */
  siblings: ReadonlyMap<string, WorkflowDefinition>;
  options: CompiledLoadOptions;
}
