import { randomUUID } from 'node:crypto';
import {
  BackendError,
  CanceledError,
  TimeoutError,
  ValidationError,
  WeftError,
  type ActionCall,
  type ConnectorRuntime,
  type ExecutionContext,
} from '@weft/core';
import type { CompiledRuntimeOptions } from '../options.js';

/** One action to run for a caller (`POST /actions/execute`). */
export interface ActionRequest {
  owner: string;
  keyId: string;
  plugin: string;
  version?: string;
  /** The action name, without the plugin. */
  action: string;
  input: Record<string, unknown>;
  /** The calling step's runtime block, passed to the invoker with the call. */
  runtime?: ConnectorRuntime;
  idempotencyKey?: string;
  /** The caller's: aborts the action (`CANCELED`) when the caller went away before the answer. */
  signal?: AbortSignal;
}

/**
 * Runs single actions for callers, outside any execution (`POST /actions/execute`, the cloud
 * steps of hybrid runs), with the server's invoker, and counts them in the key's usage.
 */
export class ActionProxy {
  constructor(private readonly options: CompiledRuntimeOptions) {}

  /**
   * Runs one action for a caller (`POST /actions/execute`, the cloud steps of hybrid runs) with
   * the server's invoker and a context (docs/protocol.md#execution-context) of its own; counts it in the key's usage. A `version`
   * makes the target `connector` reference `<plugin>@<version>`.
   */
  async execute(call: ActionRequest): Promise<unknown> {
    const { options } = this;
    const target: ActionCall['target'] =
      call.version !== undefined
        ? { kind: 'connector', ref: `${call.plugin}@${call.version}` }
        : { kind: 'plugin', slug: call.plugin };
    const unavailable = await options.actions.unavailable?.([target]);
    if (unavailable && unavailable.length > 0) {
      throw new ValidationError(
        `plugin ${unavailable.join(', ')} is neither published nor registered on this server`,
        { field: 'plugin', constraint: 'plugins_available', unavailable },
      );
    }
    const controller = new AbortController();
    const timeoutMs = options.defaultTimeoutMs ?? 120_000;
    const timer = setTimeout(
      () =>
        controller.abort(
          new TimeoutError(`action ${call.plugin}.${call.action} timed out after ${timeoutMs} ms`, {
            timeout_ms: timeoutMs,
            elapsed_ms: timeoutMs,
          }),
        ),
      timeoutMs,
    );
    const onCallerGone = () =>
      controller.abort(
        new CanceledError(
          `action ${call.plugin}.${call.action} was canceled: its caller closed the connection`,
          { canceled_at: new Date(options.clock.now()).toISOString() },
        ),
      );
    if (call.signal?.aborted) onCallerGone();
    else call.signal?.addEventListener('abort', onCallerGone, { once: true });
    const started = options.clock.now();
    const id = call.idempotencyKey ?? randomUUID();
    const context: ExecutionContext = {
      workflowId: id,
      stepName: call.action,
      inputs: {},
      executionMode: 'cloud',
      environment: options.environment,
      secrets: {},
      previousSteps: {},
      signal: controller.signal,
      get aborted() {
        return controller.signal.aborted;
      },
      idempotencyKey: id,
      progress: () => {},
    };
    try {
      const invoker = options.actions.invoker({ owner: call.owner, keyId: call.keyId });
      const invoked = invoker.invoke({
        target,
        action: call.action,
        input: call.input,
        context,
        ...(call.runtime ? { runtime: call.runtime } : {}),
      });
      const aborted = new Promise<never>((_, reject) =>
        controller.signal.addEventListener('abort', () => reject(controller.signal.reason), {
          once: true,
        }),
      );
      return (await Promise.race([invoked, aborted])).output;
    } catch (error) {
      throw error instanceof WeftError ? error : asBackendError(error, call.plugin);
    } finally {
      clearTimeout(timer);
      call.signal?.removeEventListener('abort', onCallerGone);
      const finished = options.clock.now();
      options.store
        .addUsage(call.keyId, call.owner, new Date(finished).toISOString().slice(0, 10), {
          executions: 0,
          action_calls: 1,
          duration_ms: finished - started,
        })
        .catch((error: unknown) => options.onError(error, 'usage of an action call'));
    }
  }
}

function asBackendError(error: unknown, backend: string): WeftError {
  const message = error instanceof Error ? error.message : String(error);
  return new BackendError(`${backend} failed: ${message}`, { backend, original_error: message });
}
