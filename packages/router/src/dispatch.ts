import {
  capErrorObject,
  capText,
  MAX_UPSTREAM_TEXT,
  ACTION_PATTERN,
  BackendError,
  CanceledError,
  isErrorCode,
  HTTP_STATUS,
  SLUG_PATTERN,
  TimeoutError,
  UnavailableError,
  ValidationError,
  WeftError,
} from '@weft/core';
import type { CompiledRouterOptions } from './options.js';
import type { LiveInstance, RoutingTable } from './table.js';
import { sendUpstream, type CallSignal, type ProgressReport } from './upstream.js';

/** What dispatch answers: the status and the exact JSON bytes to send. */
export interface DispatchAnswer {
  statusCode: number;
  body: string | Buffer;
  /** The instance that answered, when one did. */
  instanceId?: string;
}

/** Headers passed on to the instance (the rest, such as `authorization`, stay here). */
const FORWARDED = ['idempotency-key', 'traceparent', 'tracestate', 'x-request-id'] as const;

/** Failures to connect: nothing was sent, so the next instance may be tried. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'EGRESS_REFUSED',
]);
const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const PLUGIN = new RegExp(SLUG_PATTERN);
const ACTION = new RegExp(ACTION_PATTERN);

/** Splits `<plugin>.<action>`; throws `VALIDATION` naming `action`. */
export function parseAction(action: string, pathSlug?: string): { plugin: string; name: string } {
  const dot = action.indexOf('.');
  if (dot < 0 && pathSlug !== undefined && ACTION.test(action))
    return { plugin: pathSlug, name: action };
  const plugin = action.slice(0, dot);
  const name = action.slice(dot + 1);
  if (dot < 0 || !PLUGIN.test(plugin) || !ACTION.test(name)) {
    throw new ValidationError(
      `action "${action.length > 100 ? `${action.slice(0, 100)}...` : action}" is not of the form <plugin>.<action>, e.g. "slack.send_message"`,
      { field: 'action', constraint: 'pattern' },
    );
  }
  if (pathSlug !== undefined && plugin !== pathSlug) {
    throw new ValidationError(
      `action "${action}" does not belong to plugin "${pathSlug}" of the path`,
      {
        field: 'action',
        constraint: 'plugin',
      },
    );
  }
  return { plugin, name };
}

/**
 * Sends one call (docs/protocol.md#action-calls) to an instance serving the action, over a keep-alive pool. A connection
 * that could not be made (nothing sent) tries the next instance; after a request was sent
 * nothing is retried here. The answer is checked: a success (docs/protocol.md#action-calls) is passed on byte for byte, a
 * error (docs/protocol.md#action-calls) keeps its code, anything else is `BACKEND_ERROR` without the body's text.
 */
export class Dispatcher {
  constructor(
    private readonly table: RoutingTable,
    private readonly options: CompiledRouterOptions,
  ) {}

  /**
   * Runs `<plugin>.<action>` on an instance. `signal` abandons the call (the run was canceled,
   * the caller went away): the request's connection to the instance is closed, so the
   * service's handler sees its `AbortSignal`, and the call leaves `in_flight` at once; it
   * rejects with the signal's reason when that is a `WeftError`, else `CANCELED`.
   */
  async execute(
    plugin: string,
    action: string,
    input: unknown,
    headers: Record<string, string | string[] | undefined>,
    timeoutHeader?: string,
    signal?: CallSignal,
  ): Promise<DispatchAnswer> {
    const body = JSON.stringify({ action: `${plugin}.${action}`, input });
    return this.send(plugin, action, body, headers, timeoutHeader, signal);
  }

  /**
   * {@link execute} with the request body already encoded (`{"action": "<plugin>.<action>",
   * "input": {...}}`, checked by the caller): the router's `POST /execute` sends on the bytes it
   * received. With `onProgress`, the instance is asked for its handler's progress reports
   * (`x-weft-progress: ndjson`), given to it as they arrive.
   */
  async send(
    plugin: string,
    action: string,
    body: string | Buffer,
    headers: Record<string, string | string[] | undefined>,
    timeoutHeader?: string,
    signal?: CallSignal,
    onProgress?: (report: ProgressReport) => void,
  ): Promise<DispatchAnswer> {
    const timeoutMs = this.timeoutOf(timeoutHeader);
    const sent: Record<string, string> = { 'content-type': 'application/json' };
    if (onProgress) sent['x-weft-progress'] = 'ndjson';
    for (const name of FORWARDED) {
      const value = headers[name];
      if (typeof value === 'string') sent[name] = value;
    }
    const started = performance.now();
    let tried: Set<LiveInstance> | undefined;
    let lastRefusal = '';
    for (;;) {
      const instance = tried
        ? this.table.pick(plugin, action, tried)
        : (this.table.pick(plugin, action) ?? (await this.table.pickFresh(plugin, action)));
      if (!instance) throw this.noInstance(plugin, action, lastRefusal);
      const remaining = Math.max(1, Math.round(timeoutMs - (performance.now() - started)));
      instance.inFlight++;
      try {
        const { statusCode, body: bytes } = await sendUpstream(
          instance.pool,
          {
            path: instance.executePath,
            method: 'POST',
            headers: sent,
            body,
            headersTimeout: remaining,
            bodyTimeout: remaining,
          },
          signal,
          onProgress,
        );
        const answer = this.answer(statusCode, bytes, plugin, instance);
        answer.instanceId = instance.record.instance_id;
        return answer;
      } catch (error) {
        if (signal?.aborted) throw canceled(signal.reason);
        const code = (error as { code?: string }).code ?? '';
        if (NOT_SENT.has(code)) {
          (tried ??= new Set()).add(instance);
          lastRefusal = `${instance.record.instance_id}: ${code}`;
          continue;
        }
        throw this.failure(error, code, plugin, timeoutMs, started);
      } finally {
        instance.inFlight--;
      }
    }
  }

  private timeoutOf(header: string | undefined): number {
    const max = this.options.executeTimeoutMs;
    if (header === undefined) return max;
    const asked = Number(header);
    if (!Number.isInteger(asked) || asked < 1) {
      throw new ValidationError(
        'the x-weft-timeout-ms header must be a positive integer (milliseconds)',
        {
          field: 'x-weft-timeout-ms',
          constraint: 'integer',
        },
      );
    }
    return Math.min(asked, max);
  }

  private answer(
    statusCode: number,
    bytes: Buffer,
    plugin: string,
    instance: LiveInstance,
  ): DispatchAnswer {
    let json: unknown;
    try {
      json = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw garbage(plugin, instance, statusCode, 'a body that is not JSON');
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      throw garbage(plugin, instance, statusCode, 'JSON that is not an object');
    }
    const record = json as Record<string, unknown>;
    if (record['status'] === 'success' && statusCode >= 200 && statusCode < 300) {
      const data = record['data'];
      if (
        data === undefined ||
        (typeof data === 'object' && data !== null && !Array.isArray(data))
      ) {
        return { statusCode: 200, body: bytes };
      }
      throw garbage(plugin, instance, statusCode, 'a success whose data is not an object');
    }
    if (record['status'] === 'error') return relayError(record, plugin);
    throw garbage(
      plugin,
      instance,
      statusCode,
      'JSON that is neither a success (docs/protocol.md#action-calls) nor an error',
    );
  }

  private failure(
    error: unknown,
    code: string,
    plugin: string,
    timeoutMs: number,
    started: number,
  ): WeftError {
    if (error instanceof BackendError) return error;
    if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') {
      const message = `the answer is over the limit of ${this.options.maxResponseBytes} bytes`;
      return new BackendError(`${plugin}: ${message}`, {
        backend: plugin,
        original_error: message,
      });
    }
    const elapsed = Math.round(performance.now() - started);
    if (TIMEOUTS.has(code)) {
      return new TimeoutError(`${plugin} did not answer within ${timeoutMs} ms`, {
        timeout_ms: timeoutMs,
        elapsed_ms: elapsed,
      });
    }
    const message = `the connection failed after the request was sent (${code || (error as Error).name}); it is not retried because the action may have run`;
    return new BackendError(`${plugin}: ${message}`, { backend: plugin, original_error: message });
  }

  private noInstance(plugin: string, action: string, lastRefusal: string): UnavailableError {
    const instances = this.table.instancesOf(plugin);
    const serving = instances.filter((i) => i.actions.has(action));
    const why =
      instances.length === 0
        ? `no instance of plugin "${plugin}" is registered`
        : serving.length === 0
          ? `no registered instance of "${plugin}" serves action "${action}" (they serve ${[...new Set(instances.flatMap((i) => [...i.actions]))].join(', ')})`
          : lastRefusal !== ''
            ? `no instance of "${plugin}" could be reached (last: ${lastRefusal})`
            : `every instance of "${plugin}" serving "${action}" is unhealthy`;
    return new UnavailableError(`${plugin}.${action}: ${why}`, {
      backend: plugin,
      suggestion: `start a connector service for "${plugin}" that registers with this router (POST /register), or check GET /routes`,
    });
  }
}

/** The error of a call its caller abandoned: the signal's `WeftError`, else `CANCELED`. */
function canceled(reason: unknown): WeftError {
  if (reason instanceof WeftError) return reason;
  return new CanceledError('the call was canceled by its caller', {
    canceled_at: new Date().toISOString(),
  });
}

function garbage(
  plugin: string,
  instance: LiveInstance,
  statusCode: number,
  what: string,
): BackendError {
  const message = `instance ${instance.record.instance_id} answered ${statusCode} with ${what}`;
  return new BackendError(`${plugin}: ${message}`, {
    backend: plugin,
    original_error: message,
    status_code: statusCode,
  });
}

/** An error answer (docs/protocol.md#action-calls), re-encoded from its parsed fields only; unknown codes become BACKEND_ERROR. */
function relayError(
  record: Record<string, unknown>,
  plugin: string,
): { statusCode: number; body: string } {
  // An instance's message and details are bounded (an upstream body); the run that called
  // masks its secrets in them, then cuts them shorter (MAX_ERROR_TEXT).
  const message =
    typeof record['message'] === 'string'
      ? capText(record['message'], MAX_UPSTREAM_TEXT)
      : 'unknown error';
  const raw = record['details'];
  const details =
    typeof raw === 'object' && raw !== null && !Array.isArray(raw)
      ? capErrorObject({ message, details: raw as Record<string, unknown> }, MAX_UPSTREAM_TEXT)
          .details
      : {};
  const code = record['code'];
  if (isErrorCode(code)) {
    return {
      statusCode: HTTP_STATUS[code],
      body: JSON.stringify({ status: 'error', code, message, details }),
    };
  }
  const shown = typeof code === 'string' ? code.slice(0, 100) : 'no code';
  return {
    statusCode: 502,
    body: JSON.stringify({
      status: 'error',
      code: 'BACKEND_ERROR',
      message: `${plugin}: ${message}`,
      details: { backend: plugin, original_error: `${shown}: ${message}` },
    }),
  };
}
