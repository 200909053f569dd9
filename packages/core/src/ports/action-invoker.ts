import type { ConnectorRuntime } from '../workflow/runtime.js';
import type { ExecutionContext } from './execution-context.js';
import type { TraceContext } from '../runtime/records.js';

/** One action call of a step. */
export interface ActionCall {
  /** The plugin slug (`plugin:`) or connector reference (`connector:`) the step names. */
  target: { kind: 'plugin'; slug: string } | { kind: 'connector'; ref: string };
  /** The action name. */
  action: string;
  /** The evaluated action input. */
  input: Record<string, unknown>;
  /** The execution context (docs/protocol.md#execution-context), with the signal and progress reporter. */
  context: ExecutionContext;
  /**
   * The step's `runtime` block (docs/workflow-language.md#connector-runtime), which overrides the
   * connector's runtime field by field within the limits of docs/protocol.md#limits. Only set
   * when the step has one (action steps; agent steps have none).
   */
  runtime?: ConnectorRuntime;
  /**
   * The W3C trace context of the call's span when the run is traced: an invoker sends it on
   * (`traceparent`/`tracestate` headers) or makes it active around in-process code. Tracing
   * passes it here rather than through an active context, which would cost every promise of the
   * process an async hook (docs/observability.md).
   */
  trace?: TraceContext;
}

/**
 * What one invocation consumed, as its invoker reports it (agent backends: model tokens, cost,
 * tool calls). Every field is optional: an invoker reports what it knows. Snake case, as it is
 * stored with step records and the journal.
 */
export interface InvocationUsage {
  /** Model tokens read (prompt). */
  input_tokens?: number;
  /** Model tokens written (completion). */
  output_tokens?: number;
  /** Model tokens in all, when the backend counts them apart from the two above. */
  total_tokens?: number;
  /** Tool calls the invocation made. */
  tool_calls?: number;
  /** What the invocation cost, in US dollars. */
  cost_usd?: number;
}

/**
 * What an invocation gives back: the action's output and, when the invoker knows it, what the
 * call consumed. Invokers that only produce a value answer `{ output }`.
 */
export interface InvocationResult {
  /** The action's output (what `steps.<id>.output` reads). */
  output: unknown;
  /** What the call consumed (agent steps); absent when the invoker does not report it. */
  usage?: InvocationUsage;
}

/**
 * The port through which the engine runs actions (docs/design.md#ports). Implementations: in-process
 * handlers, shell commands and HTTP connectors (the SDK's local invoker), the router, mocks.
 * Resolves to the action's {@link InvocationResult}; rejects with a `WeftError` (other
 * exceptions are reported as `BACKEND_ERROR`).
 */
export interface ActionInvoker {
  invoke(call: ActionCall): Promise<InvocationResult>;
  /**
   * Checks, before anything runs, that every target and action a workflow names can be served;
   * throws a `ValidationError` naming the first one that cannot. Optional.
   */
  check?(target: ActionCall['target'], action: string): void;
}

/** The numeric fields of {@link InvocationUsage}, in a fixed order. */
export const USAGE_FIELDS = [
  'input_tokens',
  'output_tokens',
  'total_tokens',
  'tool_calls',
  'cost_usd',
] as const satisfies readonly (keyof InvocationUsage)[];

/**
 * Adds `more` into `into` field by field (a field either side lacks stays as the other has it);
 * returns `into`, or a copy of `more` when `into` is undefined.
 */
export function addUsage(
  into: InvocationUsage | undefined,
  more: InvocationUsage,
): InvocationUsage {
  const sum: InvocationUsage = into ?? {};
  for (const field of USAGE_FIELDS) {
    const value = more[field];
    if (typeof value === 'number') sum[field] = (sum[field] ?? 0) + value;
  }
  return sum;
}
