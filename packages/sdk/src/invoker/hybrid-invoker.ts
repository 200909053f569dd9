import { ValidationError, type ActionCall, type ActionInvoker } from '@weft/core';
import type { StepDefinition } from '@weft/engine';
import { pluginOf } from './cloud-invoker.js';

/** Where one step of a hybrid run goes. */
export type StepExecution = 'local' | 'cloud';

/**
 * Per-run override of a hybrid run (SPEC.md Appendix A): one place for every step, or a map from
 * plugin slug to place (plugins it does not name keep their step's `execution`).
 */
export type ExecutionOverride = StepExecution | Readonly<Record<string, StepExecution>>;

/** Options of {@link HybridInvoker}. */
export interface HybridInvokerOptions {
  /** Runs the local steps in this process (registered connectors and handlers). */
  local: ActionInvoker & {
    timeoutFor?(target: ActionCall['target'], action: string): number | undefined;
  };
  /** Runs the cloud steps on the server (`POST /actions/execute`). */
  cloud: ActionInvoker;
  /** Where steps without `execution` go. Default `local`. */
  defaultExecution?: StepExecution;
  /** The per-run override. */
  override?: ExecutionOverride;
}

/**
 * The `hybrid` execution mode's invoker: each action step runs locally or on the server. The
 * place is, first to last: the run's map from plugin slug to place, the run's single place, the
 * step's `execution` field (SPEC.md §2.16), the default (`local`). Local steps are checked before
 * the run like in `local` mode; cloud steps never touch local connectors.
 */
export class HybridInvoker implements ActionInvoker {
  private readonly views = new Map<StepExecution | undefined, ActionInvoker>();

  constructor(private readonly options: HybridInvokerOptions) {
    checkOverride(options.override);
  }

  /** Where a call goes, given its step's `execution` field. */
  placeOf(target: ActionCall['target'], stepExecution: StepExecution | undefined): StepExecution {
    const override = this.options.override;
    if (typeof override === 'object') {
      const byPlugin = override[pluginSlug(target)];
      if (byPlugin !== undefined) return byPlugin;
    } else if (override !== undefined) {
      return override;
    }
    return stepExecution ?? this.options.defaultExecution ?? 'local';
  }

  /** Runs a call whose step is not known (no `execution` field). */
  invoke(call: ActionCall): Promise<unknown> {
    return this.viewFor(undefined).invoke(call);
  }

  check(target: ActionCall['target'], action: string): void {
    this.viewFor(undefined).check!(target, action);
  }

  /** The local timeout of an action, when a local connector defines it. */
  timeoutFor(target: ActionCall['target'], action: string): number | undefined {
    try {
      return this.options.local.timeoutFor?.(target, action);
    } catch {
      return undefined;
    }
  }

  /** The invoker of one step (the engine's `invokerFor`): honours its `execution` field. */
  forStep(step: StepDefinition): ActionInvoker {
    return this.viewFor(step.execution);
  }

  private viewFor(stepExecution: StepExecution | undefined): ActionInvoker {
    let view = this.views.get(stepExecution);
    if (!view) {
      const { local, cloud } = this.options;
      view = {
        invoke: (call) =>
          this.placeOf(call.target, stepExecution) === 'local'
            ? local.invoke(call)
            : cloud.invoke(call),
        check: (target, action) => {
          if (this.placeOf(target, stepExecution) === 'local') local.check?.(target, action);
          else pluginOf(target);
        },
      };
      this.views.set(stepExecution, view);
    }
    return view;
  }
}

function pluginSlug(target: ActionCall['target']): string {
  return pluginOf(target).plugin;
}

/** Refuses an override that is neither `local`, `cloud` nor a map of them. */
export function checkOverride(
  override: unknown,
): asserts override is ExecutionOverride | undefined {
  if (override === undefined || override === 'local' || override === 'cloud') return;
  if (typeof override === 'object' && override !== null && !Array.isArray(override)) {
    for (const [plugin, place] of Object.entries(override)) {
      if (place !== 'local' && place !== 'cloud') {
        throw new ValidationError(
          `execution["${plugin}"] must be "local" or "cloud", got ${JSON.stringify(place)}`,
          { field: `execution.${plugin}`, constraint: 'enum' },
        );
      }
    }
    return;
  }
  throw new ValidationError(
    `execution must be "local", "cloud" or a map from plugin slug to one of them, got ${JSON.stringify(override)}`,
    { field: 'execution', constraint: 'enum' },
  );
}
