import {
  EnvironmentSecretsProvider,
  systemClock,
  ValidationError,
  type ActionCall,
  type ActionInvoker,
  type Clock,
  type ExecutionMode,
  type Principal,
  type RetrySpec,
  type SecretsProvider,
  type StreamEvent,
} from '@weft/core';
import { randomUUID } from 'node:crypto';
import type { StepDefinition, WorkflowDefinition } from '../model.js';
import type { AgentInvoker, ToolApprovalGate } from './agent-call.js';
import { compileChain, type CompiledChain } from './chain.js';
import type { RunInterceptor } from './interceptors.js';
import type { JournaledStep } from './records.js';

/** Options of {@link runWorkflow}. */
export interface RunOptions {
  /** Runs the actions. */
  invoker: ActionInvoker;
  /** Id of this execution (`workflow_id` in events and contexts); a UUID by default. */
  executionId?: string;
  /** Default `local`. */
  executionMode?: ExecutionMode;
  /** What `env.*` reads and handlers get as `environment`. */
  environment?: Readonly<Record<string, string | undefined>>;
  /** Where `secrets.*` come from; default: the `environment` map. */
  secrets?: SecretsProvider;
  /** Time: every timestamp, duration and deadline of the run, and retry delays. */
  clock?: Clock;
  /** Cancels the run: in-flight actions are aborted and the run ends `canceled`. */
  signal?: AbortSignal;
  /**
   * Receives the events (docs/protocol.md#stream-events) the workflow's `execution.streaming`
   * lets through (docs/workflow-language.md#streaming): the run's stream.
   */
  onEvent?: (event: StreamEvent) => void;
  /**
   * Receives every event, whatever `execution.streaming` says: for logs and progress displays
   * of the caller's own, not for a stream.
   */
  observe?: (event: StreamEvent) => void;
  /** What started the run: `trigger.payload` (webhook) and `trigger.event` (event trigger). */
  trigger?: { payload?: unknown; event?: unknown };
  /** Finds the workflow a subworkflow step calls. */
  resolveWorkflow?: (name: string, version: string | undefined) => WorkflowDefinition | undefined;
  /** Timeout of an action attempt whose step sets none. Default 120 s (docs/protocol.md#limits). */
  defaultTimeoutMs?: number;
  /** Timeout an invoker knows for an action (a connector's own `timeout`). */
  timeoutFor?: (target: ActionCall['target'], action: string) => number | undefined;
  /** Retry policy of steps that set none. Default: one attempt. */
  defaultRetry?: RetrySpec;
  /**
   * Most items one `for_each` may iterate over (default {@link DEFAULT_MAX_FOR_EACH_ITEMS}): a
   * longer list fails the step with `VALIDATION` before any item runs.
   */
  maxForEachItems?: number;
  /**
   * Runs agent steps, called with an {@link AgentCall}: target `{kind: 'connector', ref: <agent
   * reference>}`, action `run`, the step's definition, and a runner for the agent's tool calls
   * (which go through the chain and `invokerFor`/`invoker` as action steps do). Without it agent
   * steps fail with `UNAVAILABLE`. Dry runs answer them from `mockData[<agent reference>].run`.
   */
  agents?: AgentInvoker;
  /**
   * Decides the tool calls of agent steps that need approval (docs/agents.md#tool-approvals).
   * Without it such calls are refused with `FORBIDDEN` (`approval_required`).
   */
  toolApprovals?: ToolApprovalGate;
  /**
   * Picks the invoker of one action step, e.g. by its `execution` field (`local` or `cloud`,
   * docs/workflow-language.md#steps, hybrid mode); `undefined` falls back to `invoker`. Used for the checks before
   * the run and for every call, subworkflow steps included.
   */
  invokerFor?: (step: StepDefinition) => ActionInvoker | undefined;
  /**
   * Steps that already finished in an earlier attempt of this execution (durability): each one
   * is taken as it was and never run again; its outputs feed templates as before, and no events
   * are sent for it. Keyed by {@link JournaledStep.path}.
   */
  journal?: Iterable<JournaledStep>;
  /**
   * Called once for every step that finishes (parallel children included), after its
   * `step.completed` / `step.failed` event. A returned promise is awaited before any step
   * starts after it, and before the run ends, so a step that is reported durable is never run
   * again; a rejection fails the run. Not called for journaled steps, nor for the steps inside a
   * subworkflow.
   */
  onStepFinished?: (step: JournaledStep) => void | Promise<void>;
  /**
   * When true, the run ends without waiting for the `onStepFinished` promises still pending
   * then (those of the steps that finished last): the caller stores them with the end of the
   * execution, in one write (the runtime does), and a failure to store them is the caller's.
   * Default false.
   */
  journalWithEnd?: boolean;
  /**
   * The interceptor chain around every step and every invocation of this run and of the
   * subworkflows it calls, the first one outermost (see {@link RunInterceptor} and
   * ARCHITECTURE.md). Empty by default, which costs nothing.
   */
  interceptors?: readonly RunInterceptor[];
  /** Who started the run, passed through to interceptors as `run.principal`; opaque here. */
  principal?: Principal;
  /**
   * The workspace the run belongs to (the execution's owner), given to agent steps
   * (`AgentCall.run.owner`): budgets across runs count per owner. Default: the principal's.
   */
  owner?: string;
}

/** {@link RunOptions} with the defaults filled in. */
export interface CompiledRunOptions extends Required<
  Omit<
    RunOptions,
    | 'signal'
    | 'onEvent'
    | 'observe'
    | 'trigger'
    | 'resolveWorkflow'
    | 'timeoutFor'
    | 'defaultRetry'
    | 'agents'
    | 'toolApprovals'
    | 'invokerFor'
    | 'journal'
    | 'onStepFinished'
    | 'interceptors'
    | 'principal'
    | 'owner'
  >
> {
  signal: AbortSignal | undefined;
  onEvent: ((event: StreamEvent) => void) | undefined;
  observe: ((event: StreamEvent) => void) | undefined;
  trigger: { payload?: unknown; event?: unknown };
  resolveWorkflow: RunOptions['resolveWorkflow'];
  timeoutFor: RunOptions['timeoutFor'];
  defaultRetry: RetrySpec | undefined;
  agents: AgentInvoker | undefined;
  toolApprovals: ToolApprovalGate | undefined;
  invokerFor: RunOptions['invokerFor'];
  journal: ReadonlyMap<string, JournaledStep> | undefined;
  onStepFinished: RunOptions['onStepFinished'];
  /** The interceptors composed; undefined when there are none. */
  chain: CompiledChain | undefined;
  principal: Principal | undefined;
  owner: string | undefined;
  /** The workflows calling this run, outermost first (empty for the execution's own run). */
  callers: readonly WorkflowDefinition[];
}

/** Default most items of one `for_each` (docs/workflow-language.md#steps). */
export const DEFAULT_MAX_FOR_EACH_ITEMS = 100_000;

/** Default timeout of an action attempt: 120 s (docs/protocol.md#limits). */
export const DEFAULT_ACTION_TIMEOUT_MS = 120_000;

/** Fills the defaults of {@link RunOptions} once. */
export function compileRunOptions(options: RunOptions): CompiledRunOptions {
  const environment = options.environment ?? {};
  return {
    invoker: options.invoker,
    executionId: options.executionId ?? randomUUID(),
    executionMode: options.executionMode ?? 'local',
    environment,
    secrets: options.secrets ?? new EnvironmentSecretsProvider(environment),
    clock: options.clock ?? systemClock,
    signal: options.signal,
    onEvent: options.onEvent,
    observe: options.observe,
    trigger: options.trigger ?? {},
    resolveWorkflow: options.resolveWorkflow,
    defaultTimeoutMs: options.defaultTimeoutMs ?? DEFAULT_ACTION_TIMEOUT_MS,
    timeoutFor: options.timeoutFor,
    defaultRetry: options.defaultRetry,
    maxForEachItems: maxItems(options.maxForEachItems),
    agents: options.agents,
    toolApprovals: options.toolApprovals,
    invokerFor: options.invokerFor,
    journal: options.journal ? journalMap(options.journal) : undefined,
    onStepFinished: options.onStepFinished,
    journalWithEnd: options.journalWithEnd ?? false,
    chain: compileChain(options.interceptors, options),
    principal: options.principal,
    owner: options.owner ?? options.principal?.owner,
    callers: [],
  };
}

function maxItems(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_FOR_EACH_ITEMS;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ValidationError(`maxForEachItems must be a positive integer, not ${value}`, {
      field: 'maxForEachItems',
      constraint: 'minimum',
    });
  }
  return value;
}

function journalMap(
  steps: Iterable<JournaledStep>,
): ReadonlyMap<string, JournaledStep> | undefined {
  const map = new Map<string, JournaledStep>();
  for (const step of steps) map.set(step.path, step);
  return map.size === 0 ? undefined : map;
}
