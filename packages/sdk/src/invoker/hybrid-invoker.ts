import {
  assertNever,
  targetPlugin,
  ValidationError,
  type ActionCall,
  type ActionInvoker,
  type InvocationResult,
} from '@weft/core';
import type { StepDefinition } from '@weft/engine';

/** The places a step's `execution` field names (docs/workflow-language.md#steps): `local` or `cloud`. */
export type StepExecution = 'local' | 'cloud';

/**
 * Where one step of a hybrid run goes: the step field's places, and `self_hosted` (the router of
 * `weft server` at `routerUrl`), which only the run's override and `hybridDefault` can choose.
 */
export type ExecutionPlace = StepExecution | 'self_hosted';

/** Every {@link ExecutionPlace}, in the order error messages list them. */
export const EXECUTION_PLACES: readonly ExecutionPlace[] = ['local', 'cloud', 'self_hosted'];

/**
 * Per-run override of a hybrid run (docs/protocol.md#execution-modes): one place for every step, or a map from
 * plugin slug to place (plugins it does not name keep their step's `execution`).
 */
export type ExecutionOverride = ExecutionPlace | Readonly<Record<string, ExecutionPlace>>;

/** Options of {@link HybridInvoker}. */
export interface HybridInvokerOptions {
  /** Runs the local steps in this process (registered connectors and handlers). */
  local: ActionInvoker & {
    timeoutFor?(target: ActionCall['target'], action: string): number | undefined;
  };
  /** Runs the cloud steps on the server (`POST /actions/execute`). */
  cloud: ActionInvoker;
  /**
   * Runs the `self_hosted` steps through the router (`POST {routerUrl}/execute`). Without it, a
   * run with a step placed there fails its pre-run check: `VALIDATION` on `routerUrl`.
   */
  selfHosted?: ActionInvoker;
  /** Where steps without `execution` go. Default `local`. */
  defaultExecution?: ExecutionPlace;
  /**
   * Whether a target is a connector registered with `{ cloud: true }`: its steps without an
   * `execution` field run on the server, before `defaultExecution` applies.
   */
  cloudPlaced?: (target: ActionCall['target']) => boolean;
  /** The per-run override. */
  override?: ExecutionOverride;
}

/**
 * The `hybrid` execution mode's invoker: each action step runs locally, on the server or through
 * the self-hosted router. The place is, first to last: the run's map from plugin slug to place,
 * the run's single place, the step's `execution` field (docs/workflow-language.md#steps), `cloud` for a
 * connector registered with `{ cloud: true }`, the default (`local`).
 * Local steps are checked before the run like in `local` mode; cloud and self-hosted steps never
 * touch local connectors, and a self-hosted step without a router is refused before the run.
 */
export class HybridInvoker implements ActionInvoker {
  private readonly views = new Map<StepExecution | undefined, ActionInvoker>();

  constructor(private readonly options: HybridInvokerOptions) {
    checkOverride(options.override);
    checkPlace(options.defaultExecution, 'defaultExecution');
  }

  /** Where a call goes, given its step's `execution` field. */
  placeOf(target: ActionCall['target'], stepExecution: StepExecution | undefined): ExecutionPlace {
    const override = this.options.override;
    if (typeof override === 'object') {
      const byPlugin = override[pluginSlug(target)];
      if (byPlugin !== undefined) return byPlugin;
    } else if (override !== undefined) {
      return override;
    }
    if (stepExecution !== undefined) return stepExecution;
    if (this.options.cloudPlaced?.(target) === true) return 'cloud';
    return this.options.defaultExecution ?? 'local';
  }

  /** Runs a call whose step is not known (no `execution` field). */
  invoke(call: ActionCall): Promise<InvocationResult> {
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
      view = {
        invoke: async (call) =>
          this.invokerAt(this.placeOf(call.target, stepExecution), call.target).invoke(call),
        check: (target, action) => {
          const place = this.placeOf(target, stepExecution);
          const invoker = this.invokerAt(place, target);
          // Like `cloud` and `self_hosted` mode: a reference must name a plugin; the server or
          // the router answers for the rest when the step runs.
          if (place !== 'local') targetPlugin(target);
          invoker.check?.(target, action);
        },
      };
      this.views.set(stepExecution, view);
    }
    return view;
  }

  /** The invoker of a place; `VALIDATION` on `routerUrl` for `self_hosted` without a router. */
  private invokerAt(place: ExecutionPlace, target: ActionCall['target']): ActionInvoker {
    switch (place) {
      case 'local':
        return this.options.local;
      case 'cloud':
        return this.options.cloud;
      case 'self_hosted': {
        if (this.options.selfHosted) return this.options.selfHosted;
        const plugin = pluginSlug(target);
        throw new ValidationError(
          `plugin "${plugin}" is placed self_hosted in this hybrid run, which needs routerUrl (the router of weft server, e.g. http://127.0.0.1:8080)`,
          { field: 'routerUrl', constraint: 'required' },
        );
      }
      default:
        return assertNever(place);
    }
  }
}

function pluginSlug(target: ActionCall['target']): string {
  return targetPlugin(target).slug;
}

const PLACE_LIST = `one of ${EXECUTION_PLACES.map((p) => `"${p}"`).join(', ')}`;

/** Refuses an override that is neither a place ({@link EXECUTION_PLACES}) nor a map to places. */
export function checkOverride(
  override: unknown,
): asserts override is ExecutionOverride | undefined {
  if (override === undefined || typeof override === 'string') {
    checkPlace(override, 'execution', ', or a map from plugin slug to one of them');
    return;
  }
  if (typeof override === 'object' && override !== null && !Array.isArray(override)) {
    for (const [plugin, place] of Object.entries(override))
      checkPlace(place, `execution.${plugin}`, '', `execution["${plugin}"]`);
    return;
  }
  throw new ValidationError(
    `execution must be ${PLACE_LIST}, or a map from plugin slug to one of them, got ${JSON.stringify(override)}`,
    { field: 'execution', constraint: 'enum' },
  );
}

/**
 * Refuses a value that is not an {@link ExecutionPlace} (`undefined` passes): `VALIDATION` with
 * constraint `enum` on `field`, named `label` in the message (default: `field`).
 */
export function checkPlace(
  place: unknown,
  field: string,
  also = '',
  label = field,
): asserts place is ExecutionPlace | undefined {
  if (place === undefined || EXECUTION_PLACES.includes(place as ExecutionPlace)) return;
  throw new ValidationError(`${label} must be ${PLACE_LIST}${also}, got ${JSON.stringify(place)}`, {
    field,
    constraint: 'enum',
  });
}
