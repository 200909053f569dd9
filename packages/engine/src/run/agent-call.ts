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
  /**
   * Asks for the decisions on tool calls that need approval (`RunOptions.toolApprovals`, the
   * arguments it shows masked); undefined when the run has none: such calls are refused.
   */
  readonly approvals?: ToolApprovalGate | undefined;
}

/** A tool call that waits for approval before it runs (docs/agents.md#tool-approvals). */
export interface ToolApprovalRequest {
  /** The agent step's path. */
  readonly step: string;
  /** The agent step attempt's idempotency key: what {@link ToolApprovalGate.saved} is keyed by. */
  readonly key: string;
  /** The tool's name as the model knows it. */
  readonly tool: string;
  /** The model's id of the call. */
  readonly callId: string;
  /** The arguments the model gave (secret values masked once the engine passed them on). */
  readonly arguments: Record<string, unknown>;
  /** The tool's input schema: what edited arguments are checked against. */
  readonly inputSchema: Record<string, unknown>;
  readonly approvers: readonly string[];
  readonly timeoutSeconds: number;
  readonly onReject: 'continue' | 'fail';
}

/** What was decided on a tool call. */
export type ToolDecision =
  | {
      readonly verdict: 'approve';
      /** Who approved. */
      readonly by: string;
      /** The approver's edited arguments, when they changed them. */
      readonly arguments?: Record<string, unknown> | undefined;
      readonly comment?: string | undefined;
    }
  | {
      readonly verdict: 'reject';
      /** Who rejected (`expired`: nobody in time). */
      readonly by: string;
      /** Why: the approver's comment, `expired`, `approval_required`. */
      readonly reason: string;
      /** The error code the call fails with: `FORBIDDEN` (default). */
      readonly code?: string | undefined;
    };

/**
 * Where agent steps get decisions on tool calls (`RunOptions.toolApprovals`): the runtime
 * suspends the execution until an approver decides; the CLI approves (`--approve`), asks a TTY,
 * or refuses.
 */
export interface ToolApprovalGate {
  /**
   * The state the agent step attempt `key` saved when it asked for a decision in an earlier
   * run of the execution (to resume without repeating its model turns), if any.
   */
  saved(key: string): unknown;
  /**
   * The decision on `request`: at once when it is known, else the execution waits for one
   * (`state` is called for what to save: the attempt resumes from it) and this rejects (the
   * run stops here and resumes once decided).
   */
  decide(request: ToolApprovalRequest, state: () => Promise<unknown>): Promise<ToolDecision>;
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
  /**
   * Counts a tool call that ran in an earlier run of the attempt and is not run again (an agent
   * step resumed after a tool call's approval reuses its result): the calls after it keep the
   * idempotency keys (`…/tools/<n>`) they had.
   */
  skip?(): void;
}

/** An invoker of agent steps: {@link AgentCall}s in, the answer and its usage out. */
export interface AgentInvoker {
  invoke(call: AgentCall): Promise<InvocationResult>;
  /** Checks, before the run, that an agent reference can be served (as `ActionInvoker.check`). */
  check?(target: ActionCall['target'], action: string): void;
}
