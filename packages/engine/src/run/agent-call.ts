import type { ActionCall, InvocationResult } from '@weft/core';
import type { StepDefinition, WorkflowDefinition } from '../model.js';

/**
 * What the invoker of an agent step (`RunOptions.agents`) gets for each attempt: the call (target
 * `{kind: 'connector', ref: <agent reference>}`, action `run`, the evaluated `input`), with the
 * step's definition and the means to run the agent's tools as actions of this step.
 */
export interface AgentCall extends ActionCall {
  /** The agent step as written (`agent`, `backend`, `guardrails`, ...). */
  readonly definition: StepDefinition;
  /**
   * The run the step is in: its owner (the workspace; undefined when the run names none) and
   * the workflows of its call chain, outermost first, the step's own last (their `budgets`).
   */
  readonly run?: {
    readonly owner: string | undefined;
    readonly workflows: readonly WorkflowDefinition[];
  };
  /** Runs tool calls through the run's interceptor chain and action invokers. */
  readonly tools: ToolRunner;
  /**
   * Emits a `step.progress` event for the step with `percent`, `message` and the extra `data`
   * (secret values masked, as in every event).
   */
  report(percent: number, message: string, data?: Record<string, unknown>): void;
}

/** One tool call of an agent: an action the model asked for, with the arguments it gave. */
export interface ToolCallRequest {
  /** What the action belongs to, as an action step names it. */
  readonly target: ActionCall['target'];
  readonly action: string;
  /** The arguments, already validated against the action's input schema. */
  readonly input: Record<string, unknown>;
  /** The tool's name as the model knows it. */
  readonly name: string;
}

/**
 * Runs an agent's tool calls exactly as action steps run: through the invoke hooks of the run's
 * interceptor chain (the {@link Invocation} has `tool` set) and the invoker an action step of the
 * agent step would get (`invokerFor`, else `invoker`), with the action's timeout, the run's
 * default retry policy, the run's secrets, and the idempotency key
 * `<execution id>/<step path>/tools/<n>` (n counts the tool calls of the attempt from 1).
 * Aborting the agent attempt (timeout, cancel, an interceptor's `abort`) aborts its tool calls.
 */
export interface ToolRunner {
  run(request: ToolCallRequest): Promise<InvocationResult>;
}

/** An invoker of agent steps: {@link AgentCall}s in, the answer and its usage out. */
export interface AgentInvoker {
  invoke(call: AgentCall): Promise<InvocationResult>;
  /** Checks, before the run, that an agent reference can be served (as `ActionInvoker.check`). */
  check?(target: ActionCall['target'], action: string): void;
}
