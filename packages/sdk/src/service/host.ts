import {
  ACTION_PATTERN,
  BackendError,
  CanceledError,
  capErrorObject,
  HTTP_STATUS,
  MAX_UPSTREAM_TEXT,
  SLUG_PATTERN,
  TimeoutError,
  toErrorObject,
  ValidationError,
  type ActionCall,
  type ConnectorRuntime,
  type ErrorObject,
  type ExecutionContext,
  type HealthResponse,
} from '@weft/core';
import { ResolvedSecrets, runtimeProblems } from '@weft/engine';
import type { LocalInvoker } from '../invoker/local-invoker.js';
import { runHealthChecks, type HealthChecks } from './health.js';
import { RecentResults } from './recent-results.js';

/** An answer of the connector contract: HTTP status and body (docs/protocol.md#action-calls, docs/protocol.md#error-object). */
export interface HostAnswer {
  statusCode: number;
  body: { status: 'success'; data: Record<string, unknown> } | ErrorObject;
}

/** Receives a handler's progress reports (`context.progress`). */
export type ProgressListener = (percent: number, message?: string) => void;

/** Options of {@link ConnectorHost}. */
export interface ConnectorHostOptions {
  /** The invoker holding the connectors and handlers to serve (e.g. `weft.invoker`). */
  invoker: LocalInvoker;
  /** Dependency checks reported by `GET /healthz`. */
  healthChecks?: HealthChecks;
  /** Timeout of each health check in ms. Default 2000. */
  healthTimeoutMs?: number;
  /** Environment handlers see in `context.environment`. Default: none. */
  environment?: Readonly<Record<string, string | undefined>>;
  /**
   * How many recent idempotency keys to remember, so that a call delivered again gets the first
   * call's answer instead of running twice (see {@link RecentResults}). Default 0: off.
   */
  recentResults?: number;
}

const PLUGIN = new RegExp(SLUG_PATTERN);
const ACTION = new RegExp(ACTION_PATTERN);

/**
 * The connector contract (docs/protocol.md#action-calls, docs/protocol.md#connector-services) over a {@link LocalInvoker}, without HTTP: checks
 * the request, the action and its input against the action's schema, runs it under the
 * connector's concurrency cap and timeout, and formats the answer. The connector service and the
 * Fastify / Express / node:http integrations are thin layers over it.
 */
export class ConnectorHost {
  readonly invoker: LocalInvoker;
  /** Answers remembered by idempotency key; `duplicates` counts the calls answered from it. */
  readonly recent: RecentResults;
  private readonly options: ConnectorHostOptions;

  constructor(options: ConnectorHostOptions) {
    this.invoker = options.invoker;
    this.options = options;
    this.recent = new RecentResults(options.recentResults ?? 0);
  }

  /** Slugs of the plugins served: each connector's plugin slug (or name). */
  plugins(): string[] {
    return this.invoker.connectors().map((c) => c.slug ?? c.name);
  }

  /**
   * Runs one request (docs/protocol.md#action-calls). `pathPlugin` is the `<plugin_slug>` of `POST /<plugin_slug>/execute`
   * (then `action` may be the bare action name). `idempotencyKey` is `<execution_id>/<step path>`;
   * a key answered successfully a moment ago (or still running) gets the same answer again.
   * `signal` is the caller's: when it aborts (the HTTP connection closed before the answer),
   * the handler's `context.signal` fires and the answer is `CANCELED`. `onProgress` receives the
   * handler's `context.progress` reports (message masked) while it runs.
   */
  execute(
    body: unknown,
    pathPlugin?: string,
    idempotencyKey = '',
    signal?: AbortSignal,
    onProgress?: ProgressListener,
  ): Promise<HostAnswer> {
    const action = (body as { action?: unknown } | null)?.action;
    return this.recent.run(
      idempotencyKey,
      `${pathPlugin ?? ''}:${typeof action === 'string' ? action : ''}`,
      () => this.executeOnce(body, pathPlugin, idempotencyKey, signal, onProgress),
    );
  }

  private async executeOnce(
    body: unknown,
    pathPlugin: string | undefined,
    idempotencyKey: string,
    signal: AbortSignal | undefined,
    onProgress: ProgressListener | undefined,
  ): Promise<HostAnswer> {
    // The credentials the call read (its connector's declared environment, `addSecret`): the
    // calling run cannot see this process's environment, so the answer is masked here.
    const secrets = new ResolvedSecrets({});
    try {
      const { plugin, action, input, runtime } = this.parse(body, pathPlugin);
      const target = { kind: 'plugin' as const, slug: plugin };
      this.invoker.check(target, action);
      const call = { target, action, input, ...(runtime ? { runtime } : {}) };
      const data = await this.run(call, idempotencyKey, signal, secrets, onProgress);
      return { statusCode: 200, body: { status: 'success', data: secrets.mask(data) } };
    } catch (error) {
      const object = capErrorObject(secrets.mask(toErrorObject(error)), MAX_UPSTREAM_TEXT);
      return { statusCode: HTTP_STATUS[object.code], body: object };
    }
  }

  /** The health answer (docs/protocol.md#health) and its HTTP status (503 when unhealthy). */
  async health(): Promise<{ statusCode: number; body: HealthResponse }> {
    const body = await runHealthChecks(
      this.options.healthChecks ?? {},
      this.options.healthTimeoutMs ?? 2000,
      this.invoker.connectors()[0]?.version ?? '0.0.0',
    );
    return { statusCode: body.status === 'unhealthy' ? 503 : 200, body };
  }

  private parse(body: unknown, pathPlugin: string | undefined) {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw invalid('body', 'type', 'the body must be a JSON object {action, input}');
    }
    const record = body as Record<string, unknown>;
    const extra = Object.keys(record).find(
      (k) => k !== 'action' && k !== 'input' && k !== 'runtime',
    );
    if (extra !== undefined)
      throw invalid(extra, 'additionalProperties', `${extra} is not a known field`);
    const raw = record['action'];
    if (typeof raw !== 'string')
      throw invalid(
        'action',
        raw === undefined ? 'required' : 'type',
        'action must be a string "<plugin>.<action>"',
      );
    const input = record['input'];
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      throw invalid(
        'input',
        input === undefined ? 'required' : 'type',
        'input must be an object of action parameters',
      );
    }
    const dot = raw.indexOf('.');
    const plugin = dot < 0 ? (pathPlugin ?? '') : raw.slice(0, dot);
    const action = dot < 0 ? raw : raw.slice(dot + 1);
    if (!PLUGIN.test(plugin) || !ACTION.test(action)) {
      throw invalid(
        'action',
        'pattern',
        `action "${raw.slice(0, 100)}" is not of the form <plugin>.<action>`,
      );
    }
    if (pathPlugin !== undefined && plugin !== pathPlugin) {
      throw invalid(
        'action',
        'plugin',
        `action "${raw}" does not belong to plugin "${pathPlugin}" of the path`,
      );
    }
    return {
      plugin,
      action,
      input: input as Record<string, unknown>,
      runtime: checkedRuntime(record['runtime']),
    };
  }

  private async run(
    call: Omit<ActionCall, 'context'>,
    idempotencyKey: string,
    signal: AbortSignal | undefined,
    secrets: ResolvedSecrets,
    onProgress: ProgressListener | undefined,
  ): Promise<Record<string, unknown>> {
    const { target, action } = call;
    // The step's runtime overrides the connector's timeout (docs/protocol.md#action-calls).
    const stepSeconds = call.runtime?.resources?.timeout;
    const timeoutMs =
      stepSeconds !== undefined ? stepSeconds * 1000 : this.invoker.timeoutFor(target, action);
    const controller = new AbortController();
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    let onCancel: (() => void) | undefined;
    // Ends the call when the connector's timeout passes or the caller goes away; either way the
    // handler's signal fires with the reason (and a shell command's process group is killed).
    const expired = new Promise<never>((_, reject) => {
      const stop = (error: Error) => {
        controller.abort(error);
        reject(error);
      };
      timer = setTimeout(() => {
        stop(
          new TimeoutError(
            `${target.kind === 'plugin' ? target.slug : ''}.${action} did not finish within ${timeoutMs} ms`,
            { timeout_ms: timeoutMs, elapsed_ms: Date.now() - started },
          ),
        );
      }, timeoutMs);
      if (!signal) return;
      onCancel = () =>
        stop(
          new CanceledError(
            `${target.kind === 'plugin' ? target.slug : ''}.${action} was canceled: its caller closed the connection`,
            { canceled_at: new Date().toISOString() },
          ),
        );
      if (signal.aborted) onCancel();
      else signal.addEventListener('abort', onCancel, { once: true });
    });
    try {
      const context = contextOf(controller.signal, idempotencyKey, this.options.environment ?? {});
      if (onProgress) {
        context.progress = (percent, message) =>
          onProgress(percent, message === undefined ? undefined : secrets.mask(message));
      }
      context.addSecret = (name, value) => secrets.add(name, value);
      const { output } = await Promise.race([this.invoker.invoke({ ...call, context }), expired]);
      if (output === undefined) return {};
      if (typeof output !== 'object' || output === null || Array.isArray(output)) {
        const message = `the handler returned ${Array.isArray(output) ? 'an array' : typeof output}, not an object (docs/protocol.md#action-calls: data is an object)`;
        throw new BackendError(message, {
          backend: target.kind === 'plugin' ? target.slug : 'connector',
          original_error: message,
        });
      }
      return output as Record<string, unknown>;
    } finally {
      clearTimeout(timer);
      if (onCancel) signal!.removeEventListener('abort', onCancel);
    }
  }
}

/** The context (docs/protocol.md#execution-context) of a call received over HTTP: ids from its idempotency key. */
function contextOf(
  signal: AbortSignal,
  idempotencyKey: string,
  environment: ExecutionContext['environment'],
): ExecutionContext {
  const slash = idempotencyKey.indexOf('/');
  return {
    workflowId: slash < 0 ? idempotencyKey : idempotencyKey.slice(0, slash),
    stepName: slash < 0 ? '' : idempotencyKey.slice(slash + 1),
    inputs: {},
    executionMode: 'self_hosted',
    environment,
    secrets: {},
    previousSteps: {},
    signal,
    get aborted() {
      return signal.aborted;
    },
    idempotencyKey,
    progress: () => undefined,
  };
}

/**
 * The optional `runtime` of an execute request (a weft extension, docs/protocol.md#action-calls):
 * its shape and quantities as workflow validation checks them; `VALIDATION` naming
 * `runtime.<path>` otherwise.
 */
function checkedRuntime(value: unknown): ConnectorRuntime | undefined {
  if (value === undefined) return undefined;
  const [problem] = runtimeProblems(value);
  if (problem)
    throw invalid(problem.field, problem.constraint, `${problem.field}: ${problem.message}`);
  return value as ConnectorRuntime;
}

function invalid(field: string, constraint: string, message: string): ValidationError {
  return new ValidationError(message, { field, constraint });
}
