import type { ActionCall, ExecutionContext } from '@weft/core';
import { processEnvironment } from '../client/environment.js';
import { LocalInvoker } from '../invoker/local-invoker.js';
import type { LocalInvokerOptions } from '../invoker/options.js';

/** Overrides of {@link makeContext}. */
export interface ContextOverrides {
  signal?: AbortSignal;
  environment?: Record<string, string | undefined>;
  idempotencyKey?: string;
  progress?: ExecutionContext['progress'];
}

/**
 * An execution context for tests: workflow `wf-1`, step `step`, the environment given (default:
 * only `PATH`, so that commands are found), a fresh signal unless one is given.
 */
export function makeContext(overrides: ContextOverrides = {}): ExecutionContext {
  const signal = overrides.signal ?? new AbortController().signal;
  return {
    get aborted() {
      return signal.aborted;
    },
    workflowId: 'wf-1',
    stepName: 'step',
    inputs: {},
    executionMode: 'local',
    environment: overrides.environment ?? { PATH: processEnvironment()['PATH'] },
    secrets: {},
    previousSteps: {},
    signal,
    idempotencyKey: overrides.idempotencyKey ?? 'wf-1/step',
    progress: overrides.progress ?? (() => undefined),
  };
}

/** An action call on `plugin: <slug>`. */
export function pluginCall(
  slug: string,
  action: string,
  input: Record<string, unknown> = {},
  context: ExecutionContext = makeContext(),
): ActionCall {
  return { target: { kind: 'plugin', slug }, action, input, context };
}

/** Runs `plugin.action` with `input`; the promise of its output. */
export function run(
  invoker: LocalInvoker,
  key: string,
  input: Record<string, unknown> = {},
  overrides: ContextOverrides = {},
): Promise<unknown> {
  const [slug, action] = key.split('.') as [string, string];
  return invoker
    .invoke(pluginCall(slug, action, input, makeContext(overrides)))
    .then((result) => result.output);
}

/** The rejection of a promise (fails when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Record<string, unknown>;
  }
  throw new Error('expected the promise to reject, it resolved');
}

/** The error a synchronous function throws (fails when it returns). */
export function thrown(fn: () => unknown): Record<string, unknown> {
  try {
    fn();
  } catch (error) {
    return error as Record<string, unknown>;
  }
  throw new Error('expected a throw, the function returned');
}

/** A {@link LocalInvoker} with a small connector registered from a definition object. */
export function invokerWith(definition: object, options: LocalInvokerOptions = {}): LocalInvoker {
  const invoker = new LocalInvoker(options);
  invoker.registerConnector(definition);
  return invoker;
}
