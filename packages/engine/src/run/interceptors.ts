import type {
  ActionCall,
  ExecutionMode,
  InvocationResult,
  InvocationUsage,
  Principal,
  StepType,
  WeftError,
} from '@weft/core';
import type { StepDefinition, WorkflowDefinition } from '../model.js';
import type { ToolInvocationInfo } from './attempt-tools.js';

/** Who a step is, as interceptors see it. One object per step of a planned workflow. */
export interface StepInfo {
  /** Path of the step: `step`, or `block/child` for a child of a parallel block. */
  readonly path: string;
  /** The step's name (`id`). */
  readonly name: string;
  /** The step's type. */
  readonly kind: StepType;
  /** What an action or agent step calls; undefined for transform, workflow and parallel. */
  readonly target: ActionCall['target'] | undefined;
  /** The action an action step calls (`run` for an agent step); undefined otherwise. */
  readonly action: string | undefined;
  /** The whole definition (for fields such as `authorization` or `guardrails`). */
  readonly definition: StepDefinition;
  /** The parallel block holding this step; undefined at top level. */
  readonly parent: StepInfo | undefined;
}

/** Which run a step belongs to. One object per run; a subworkflow is a run of its own. */
export interface RunInfo {
  /** `RunOptions.executionId`; `<parent id>/<step path>` for a subworkflow. */
  readonly executionId: string;
  /** The workflow being run (`name`, `version`, and the rest of its definition). */
  readonly workflow: WorkflowDefinition;
  readonly mode: ExecutionMode;
  /** `RunOptions.principal`: who started the run, passed through as given. */
  readonly principal: Principal | undefined;
  /** 0 for the run itself, 1 for a subworkflow it calls, and so on. */
  readonly depth: number;
  /** For a subworkflow: the run and step that called it. */
  readonly caller: { readonly run: RunInfo; readonly step: StepInfo } | undefined;
  /** `RunOptions.owner`: the workspace the run is in; undefined when the run names none. */
  readonly owner: string | undefined;
  /** The workflows of the run's call chain, outermost first, this run's own last. */
  readonly workflows: readonly WorkflowDefinition[];
}

/** What a step hook sees: the step, its run, and the step's progress so far. */
export interface StepCall {
  readonly step: StepInfo;
  readonly run: RunInfo;
  /** When the step started (after its condition), in ms since the epoch by the run's clock. */
  readonly startedMs: number;
  /** Attempts made so far (summed over `for_each` items); final once `next` settled. */
  readonly attempts: number;
  /** Usage its invocations reported so far, summed; undefined when none reported any. */
  readonly usage: InvocationUsage | undefined;
  /**
   * Ends the step now with `reason` (e.g. a `TimeoutError` for a time limit): its in-flight
   * invocations are aborted (their signal fires), no further attempt or retry starts, a
   * subworkflow it runs is canceled, and `next` rejects with `reason`. Ignored once the step
   * has settled.
   */
  abort(reason: WeftError): void;
}

/** What a step produced, as step hooks see it and may replace it. */
export interface StepOutcome {
  /** The output: action, agent and transform steps, parallel blocks (children by name). */
  output?: unknown;
  /** The outputs of a subworkflow step. */
  outputs?: Record<string, unknown>;
}

/**
 * One invocation of an action or agent step: the call its invoker gets (it is an
 * {@link ActionCall}), with who makes it. One per attempt, and per `for_each` item.
 */
export interface Invocation extends ActionCall {
  readonly step: StepInfo;
  readonly run: RunInfo;
  /** 1 for the first attempt, n for the n-th (per `for_each` item). */
  readonly attempt: number;
  /** The `for_each` item index; undefined for a step without `for_each`. */
  readonly item: number | undefined;
  /**
   * Set on a tool call of an agent step: the action the model asked for (`target`, `action`,
   * `input`), made as an invocation of the agent's step and attempt. Undefined otherwise.
   */
  readonly tool?: ToolInvocationInfo | undefined;
}

/** One target checked before the run starts (what `ActionInvoker.check` gets). */
export interface TargetCheck {
  readonly target: ActionCall['target'];
  readonly action: string;
  readonly step: StepInfo;
  readonly run: RunInfo;
}

/**
 * A link of the run's interceptor chain (`RunOptions.interceptors`), in the manner of Temporal's
 * interceptors: each hook gets the call and `next`, the rest of the chain. The first interceptor
 * of the list is the outermost. A hook may change what `next` gives before returning it, answer
 * without calling `next` (short-circuit), or throw: a step hook or invocation hook that throws
 * (or rejects) fails that step or attempt with the error (`WeftError`s as they are, anything
 * else as `INTERNAL_ERROR` for a step, `BACKEND_ERROR` for an invocation), and
 * `continue_on_error` and `retry` apply as to any failure. Every hook is optional; see
 * ARCHITECTURE.md.
 */
export interface RunInterceptor {
  /** Names the interceptor in diagnostics. */
  readonly name?: string;
  /**
   * Around one step, once: after its condition passed, around all its attempts, retries and
   * `for_each` items. Journaled steps (taken back on resume), skipped steps and steps whose
   * condition fails are not intercepted. Parallel blocks and their children are intercepted
   * each; the steps of a subworkflow too, with that run's {@link RunInfo}. `next` rejects when
   * the step fails.
   */
  step?(call: StepCall, next: () => Promise<StepOutcome>): Promise<StepOutcome>;
  /**
   * Around one invocation of the invoker (each attempt of an action or agent step). `next`
   * passes the call on (possibly changed) to the rest of the chain, and at its end to the
   * step's invoker. Runs inside the attempt's timeout.
   */
  invoke?(
    call: Invocation,
    next: (call: Invocation) => Promise<InvocationResult>,
  ): Promise<InvocationResult>;
  /**
   * Around the check of one target before the run starts (`ActionInvoker.check`). Return
   * without calling `next` to accept the target without asking the invoker; throw a
   * `ValidationError` to refuse it (the run fails before any step runs).
   */
  check?(check: TargetCheck, next: (check: TargetCheck) => void): void;
}
