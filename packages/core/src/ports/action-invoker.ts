import type { ExecutionContext } from './execution-context.js';

/** One action call of a step. */
export interface ActionCall {
  /** The plugin slug (`plugin:`) or connector reference (`connector:`) the step names. */
  target: { kind: 'plugin'; slug: string } | { kind: 'connector'; ref: string };
  /** The action name. */
  action: string;
  /** The evaluated action input. */
  input: Record<string, unknown>;
  /** The §2.9 execution context, with the signal and progress reporter. */
  context: ExecutionContext;
}

/**
 * The port through which the engine runs actions (DESIGN.md §2). Implementations: in-process
 * handlers, shell commands and HTTP connectors (the SDK's local invoker), the router, mocks.
 * Resolves to the action's output; rejects with a `WeftError` (other exceptions are reported as
 * `BACKEND_ERROR`).
 */
export interface ActionInvoker {
  invoke(call: ActionCall): Promise<unknown>;
  /**
   * Checks, before anything runs, that every target and action a workflow names can be served;
   * throws a `ValidationError` naming the first one that cannot. Optional.
   */
  check?(target: ActionCall['target'], action: string): void;
}
