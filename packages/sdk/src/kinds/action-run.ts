import type { ConnectorRuntime, ExecutionContext, TraceContext } from '@weft/core';
import type { CompiledAction, CompiledConnector } from '../connector/compile-connector.js';

/** One call as the kind runners see it, after resolution and input validation. */
export interface ActionRun {
  readonly connector: CompiledConnector;
  /** The action's definition (absent for a plugin made only of registered handlers). */
  readonly action: CompiledAction | undefined;
  /** `<plugin>.<action>`, as handlers are keyed and connector services are called. */
  readonly call: string;
  readonly input: Record<string, unknown>;
  readonly context: ExecutionContext;
  /** The step's `runtime` block, which overrides the connector's field by field. */
  readonly stepRuntime?: ConnectorRuntime | undefined;
  /** The trace context of the call's span (`ActionCall.trace`), when the run is traced. */
  readonly trace?: TraceContext | undefined;
}

/** Limits of the `shell` and `http` runners. */
export interface TransportLimits {
  /** Largest stdout of a command, or body of an HTTP answer, in bytes. */
  readonly maxOutputBytes: number;
}
