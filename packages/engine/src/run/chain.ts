import {
  UnavailableError,
  ValidationError,
  type ActionInvoker,
  type InvocationResult,
} from '@weft/core';
import type { AgentCall, AgentInvoker } from './agent-call.js';
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
  agents?: AgentInvoker | undefined;
  invokerFor?: ((step: StepDefinition) => ActionInvoker | undefined) | undefined;
}

/**
 * The invoker of one call of a step: `agents` for an agent step's own call, else `invokerFor`,
 * else `invoker` (so an agent's tool calls, which carry `tool`, run where an action step would).
 * Without `agents`, an agent step's call gets an invoker that fails with `UNAVAILABLE`.
 */
export function invokerOf(options: InvokerPicker, step: StepInfo, call?: object): AgentInvoker {
  if (step.kind === 'agent' && (call as { tool?: unknown } | undefined)?.tool === undefined)
    return options.agents ?? NO_AGENTS;
  return options.invokerFor?.(step.definition) ?? options.invoker;
}

/** Refuses agent steps when no agent invoker is configured, before the run and at its call. */
const NO_AGENTS: AgentInvoker = {
  // Before the run, as an unknown connector is: no agent can be found with no agents at all.
  check: (target) => {
    const ref = target.kind === 'connector' ? target.ref : target.slug;
    throw new ValidationError(
      `unknown agent ${ref}: no agents are loaded (agents come from --agents <dir>, default ./agents, or the SDK's agents option)`,
      { field: 'agent', constraint: 'exists' },
    );
  },
  invoke: (call) =>
    Promise.reject(
      new UnavailableError(
        `no agent backend is configured to run agent step "${call.context.stepName}"`,
        {
          backend: call.definition.backend ?? 'ai-sdk',
          suggestion:
            'run with agents (weft: --agents <dir>), or mock the step with testing.dryRun',
        },
      ),
    ),
};

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
      const next =
        invoke ??
        ((call: Invocation) =>
          invokerOf(invokers, call.step, call).invoke(call as unknown as AgentCall));
      invoke = (call) => hook(call, next);
    }
    if (interceptor.check) {
      const hook = interceptor.check.bind(interceptor);
      const next =
        check ?? ((c: TargetCheck) => invokerOf(invokers, c.step).check?.(c.target, c.action));
      check = (c) => hook(c, next);
    }
  }
  return { step, invoke, check };
}

function proceed(call: StepCall): Promise<StepOutcome> {
  return (call as StepTerminal).proceed();
}
