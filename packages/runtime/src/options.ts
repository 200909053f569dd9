import {
  systemClock,
  type ActionCall,
  type ActionInvoker,
  type Clock,
  type ExecutionsStore,
  type DetectorNames,
  type Principal,
  type SecretsProvider,
  type StoredExecution,
} from '@weft/core';
import { DEFAULT_CALLBACK_POLICY } from '@weft/sdk/callbacks';
import type { AgentInvoker, RunInterceptor } from '@weft/engine';
import { defaultDetectors, guardrailsInterceptor, type GuardrailsOptions } from '@weft/guardrails';
import type { WeftMetrics, WorkflowTracing } from '@weft/telemetry';
import { AuditLog, type AuditOptions } from './audit/audit-log.js';
import { MemoryAuditStore } from './audit/memory-audit-store.js';
import type { RetentionOptions } from './retention/sweeper.js';

/** Who an execution runs for: what the server's action invoker may need to know. */
export interface ExecutionOwner {
  owner: string;
  keyId: string | null;
}

/**
 * How the server runs actions (the router's registered instances, published plugins' declarative
 * `http` actions). The runtime only calls it; the server composes it.
 */
export interface ServerActions {
  /** The invoker of one execution's actions. */
  invoker(owner: ExecutionOwner): ActionInvoker;
  /**
   * Of these targets, the ones that can be served neither by a registered instance nor by a
   * published plugin (`plugin` or `connector:` reference as written). Empty when all can.
   */
  unavailable?(targets: readonly ActionCall['target'][]): Promise<string[]>;
}

/** Retry policy of completion callbacks. */
export interface CallbackPolicy {
  /** Attempts in all. Default 8. */
  maxAttempts?: number;
  /** Delay before the second attempt; doubled each time. Default 1000 ms. */
  firstDelayMs?: number;
  /** Longest delay (also caps `Retry-After`). Default 5 minutes. */
  maxDelayMs?: number;
  /** Timeout of one attempt. Default 10 s. */
  timeoutMs?: number;
}

/** See {@link RuntimeOptions.runLog}. */
export interface RunLog {
  /**
   * A run starts here: a new execution, or one resumed from its journal (`resumed`). `trace`
   * holds the `trace_id` and `span_id` of the run's span when it is traced.
   */
  started(execution: StoredExecution, resumed: boolean, trace: RunTraceFields): void;
  /** It ended, `durationMs` after the execution first started. */
  ended(execution: StoredExecution, durationMs: number, trace: RunTraceFields): void;
}

/** The ids of a traced run's span, for its log lines (empty when it is not traced). */
export interface RunTraceFields {
  trace_id?: string;
  span_id?: string;
}

/** Options of the runtime. */
export interface RuntimeOptions {
  store: ExecutionsStore;
  /** Resolves an `Authorization` header to its principal (the registry's API keys). */
  authenticate(authorization: string | undefined): Promise<Principal>;
  actions: ServerActions;
  /** Runs agent steps (`@weft/agents`' `AgentRunner`). Default: none, agent steps fail `UNAVAILABLE`. */
  agents?: AgentInvoker;
  /** Secrets of server-side runs (`secrets.*`). Default: none. */
  secrets?: SecretsProvider;
  /** What `env.*` reads in server-side runs. Default: empty. */
  environment?: Readonly<Record<string, string>>;
  /** CIDRs callbacks may reach although private (`WEFT_EGRESS_ALLOWLIST`). */
  egressAllowlist?: readonly string[];
  /** Resolves a host name for callbacks (tests). Default: DNS. */
  lookup?: (host: string) => Promise<string[]>;
  callbacks?: CallbackPolicy;
  /** Lease of a running execution; renewed at a third of it. Default 30 s. */
  leaseMs?: number;
  /** How often expired leases and pending executions are looked for. Default 5 s. */
  sweepMs?: number;
  /**
   * Take over every unfinished execution at start, leases or not: right when one server owns the
   * database (embedded SQLite). Default false.
   */
  takeOverOnStart?: boolean;
  /**
   * This replica's name (`WEFT_REPLICA_ID`): the worker holds leases as `<replica>#<uuid>` and,
   * at start, takes back at once the leases an earlier process of the same replica held. Give
   * each running replica its own name. Default: none (a random worker id, nothing taken back).
   */
  replica?: string;
  /** Executions running at once in this process. Default 256. */
  maxConcurrent?: number;
  /** Longest `Prefer: wait`. Default 60 s. */
  maxWaitSeconds?: number;
  /** Default timeout of an action attempt (ms); the engine's default otherwise. */
  defaultTimeoutMs?: number;
  /** Most items of one `for_each` (`WEFT_MAX_FOR_EACH_ITEMS`); the engine's default otherwise. */
  maxForEachItems?: number;
  clock?: Clock;
  /** Reports background failures (sweeps, callbacks). Default: ignored. */
  onError?: (error: unknown, context: string) => void;
  /** The audit log of authorization decisions. Default: in memory, not logged. */
  audit?: AuditOptions;
  /**
   * Lets the principal that started a run approve or reject it (`WEFT_APPROVAL_ALLOW_SELF`).
   * Default false: separation of duties.
   */
  allowSelfApproval?: boolean;
  /**
   * Learns of every run that starts in this process and of its end, inside the run's trace
   * context (a log line written there carries its trace and span ids). The server writes a log
   * line for each.
   */
  runLog?: RunLog;
  /** Learns of every execution that ended in this process (the server logs triggered runs). */
  onEnded?: (execution: StoredExecution) => void;
  /**
   * How steps' `guardrails` are enforced (`@weft/guardrails`): detectors, the guardrails in
   * force for a step (agent defaults), the text limit. Default: the default detectors.
   */
  guardrails?: GuardrailsOptions;
  /**
   * Traces runs (a span per run, step and action call) when given; `startTelemetry` of
   * `@weft/telemetry/setup` makes it. Undefined: no tracing interceptor is installed.
   */
  tracing?: WorkflowTracing;
  /** Counts action calls, retries and ended executions (docs/observability.md#metrics). */
  metrics?: WeftMetrics;
  /**
   * How long ended executions and audit entries are kept (docs/runtime.md#retention). Default:
   * forever (the server sets its default).
   */
  retention?: RetentionOptions;
}

/** {@link RuntimeOptions} with defaults filled in. */
export interface CompiledRuntimeOptions extends Required<
  Omit<
    RuntimeOptions,
    | 'secrets'
    | 'lookup'
    | 'callbacks'
    | 'defaultTimeoutMs'
    | 'maxForEachItems'
    | 'onError'
    | 'audit'
    | 'onEnded'
    | 'guardrails'
    | 'agents'
    | 'tracing'
    | 'metrics'
    | 'replica'
    | 'runLog'
    | 'retention'
  >
> {
  retention: RetentionOptions;
  runLog: RunLog | undefined;
  replica: string | undefined;
  agents: AgentInvoker | undefined;
  secrets: SecretsProvider | undefined;
  lookup: RuntimeOptions['lookup'];
  callbacks: Required<CallbackPolicy>;
  defaultTimeoutMs: number | undefined;
  maxForEachItems: number | undefined;
  onError: (error: unknown, context: string) => void;
  onEnded: ((execution: StoredExecution) => void) | undefined;
  /** Records authorization decisions: `options.audit.record({...})`. */
  audit: AuditLog;
  /** The guardrails interceptor, built once; runs install it when their workflows need it. */
  guardrails: RunInterceptor;
  /** The detector names workflows may choose (`guardrails.detectors`), checked at deploy. */
  detectorNames: DetectorNames;
  tracing: WorkflowTracing | undefined;
  metrics: WeftMetrics | undefined;
}

/** Fills the defaults of {@link RuntimeOptions} once. */
export function compileRuntimeOptions(options: RuntimeOptions): CompiledRuntimeOptions {
  const clock = options.clock ?? systemClock;
  const detectors = options.guardrails?.detectors ?? defaultDetectors();
  return {
    store: options.store,
    authenticate: options.authenticate,
    actions: options.actions,
    secrets: options.secrets,
    agents: options.agents,
    environment: options.environment ?? {},
    egressAllowlist: options.egressAllowlist ?? [],
    lookup: options.lookup,
    callbacks: {
      maxAttempts: options.callbacks?.maxAttempts ?? DEFAULT_CALLBACK_POLICY.maxAttempts,
      firstDelayMs: options.callbacks?.firstDelayMs ?? DEFAULT_CALLBACK_POLICY.firstDelayMs,
      maxDelayMs: options.callbacks?.maxDelayMs ?? DEFAULT_CALLBACK_POLICY.maxDelayMs,
      timeoutMs: options.callbacks?.timeoutMs ?? DEFAULT_CALLBACK_POLICY.timeoutMs,
    },
    leaseMs: options.leaseMs ?? 30_000,
    sweepMs: options.sweepMs ?? 5_000,
    takeOverOnStart: options.takeOverOnStart ?? false,
    replica: options.replica,
    maxConcurrent: options.maxConcurrent ?? 256,
    maxWaitSeconds: options.maxWaitSeconds ?? 60,
    defaultTimeoutMs: options.defaultTimeoutMs,
    maxForEachItems: options.maxForEachItems,
    clock,
    onError: options.onError ?? (() => {}),
    audit: new AuditLog(options.audit ?? { store: new MemoryAuditStore() }, clock),
    allowSelfApproval: options.allowSelfApproval ?? false,
    onEnded: options.onEnded,
    runLog: options.runLog,
    retention: options.retention ?? {},
    guardrails: guardrailsInterceptor({ ...options.guardrails, detectors }),
    detectorNames: detectors.names(),
    tracing: options.tracing,
    metrics: options.metrics,
  };
}
