import type { ActionInvoker, InvocationResult } from '@weft/core';
import type { StepDefinition } from '../model.js';
import type {
  Invocation,
  RunInterceptor,
  StepCall,
  StepInfo,
  StepOutcome,
  TargetCheck,
} from './interceptors.js';

/**
 * The interceptors of a run composed once, per hook, around their terminal. A hook no
 * interceptor has is undefined, so the engine takes its direct path: an empty chain costs one
 * property read per step and per attempt.
 */
export interface CompiledChain {
  /** Around a step; the terminal runs the step ({@link StepTerminal}). */
  readonly step: ((call: StepCall) => Promise<StepOutcome>) | undefined;
  /** Around an invocation; the terminal is the step's invoker. */
  readonly invoke: ((call: Invocation) => Promise<InvocationResult>) | undefined;
  /** Around a pre-run check; the terminal is the step's invoker's `check`. */
  readonly check: ((check: TargetCheck) => void) | undefined;
}

/** A step call that can run its step: the end of the step chain. */
export interface StepTerminal extends StepCall {
  proceed(): Promise<StepOutcome>;
}

/** What picks the invoker of a step (the run's `invoker`, `invokerFor` and `agents`). */
export interface InvokerPicker {
  invoker: ActionInvoker;
  agents?: ActionInvoker | undefined;
  invokerFor?: ((step: StepDefinition) => ActionInvoker | undefined) | undefined;
}

/** The invoker of one step: `agents` for an agent step, else `invokerFor`, else `invoker`. */
export function invokerOf(options: InvokerPicker, step: StepInfo): ActionInvoker | undefined {
  if (step.kind === 'agent') return options.agents;
  return options.invokerFor?.(step.definition) ?? options.invoker;
}

/** Composes `interceptors` (the first one outermost); undefined when there are none. */
export function compileChain(
  interceptors: readonly RunInterceptor[] | undefined,
  invokers: InvokerPicker,
): CompiledChain | undefined {
  if (!interceptors || interceptors.length === 0) return undefined;
  let step: CompiledChain['step'];
  let invoke: CompiledChain['invoke'];
  let check: CompiledChain['check'];
  // Innermost first, so that each hook's `next` is the composition of the hooks after it.
  for (let i = interceptors.length - 1; i >= 0; i--) {
    const interceptor = interceptors[i]!;
    if (interceptor.step) {
      const hook = interceptor.step.bind(interceptor);
      const next = step ?? proceed;
      step = (call) => hook(call, () => next(call));
    }
    if (interceptor.invoke) {
      const hook = interceptor.invoke.bind(interceptor);
      const next = invoke ?? ((call: Invocation) => invokerOf(invokers, call.step)!.invoke(call));
      invoke = (call) => hook(call, next);
    }
    if (interceptor.check) {
      const hook = interceptor.check.bind(interceptor);
      const next =
        check ?? ((c: TargetCheck) => invokerOf(invokers, c.step)?.check?.(c.target, c.action));
      check = (c) => hook(c, next);
    }
  }
  return { step, invoke, check };
}

function proceed(call: StepCall): Promise<StepOutcome> {
  return (call as StepTerminal).proceed();
}
