import {
  BackendError,
  fromErrorObject,
  targetPlugin,
  UnavailableError,
  type ActionCall,
  type ActionInvoker,
  type InvocationResult,
  type WeftError,
} from '@weft/core';
import { injectTraceContext } from '@weft/telemetry';
import { abortError } from '../kinds/errors.js';
import type { ClientTls } from '../service/router-client.js';
import { checkServerUrl } from '../http-client/server-url.js';
import { LazyAgent, loadUndici } from '../client/undici-transport.js';

/** Options of {@link RouterInvoker}. */
export interface RouterInvokerOptions {
  /** Base URL of the router (`weft server`), e.g. `https://router.internal:8080`. */
  routerUrl: string;
  /** Client certificate for a router that requires mutual TLS (docs/router.md#protection). */
  tls?: ClientTls;
  /** Largest answer accepted, in bytes. Default 10 MiB. */
  maxResponseBytes?: number;
  /**
   * Sent as `Authorization: Bearer <credential>`: an API key of the router's server, or its
   * router token. A router that serves the public API refuses `POST /execute` without one.
   */
  credential?: string;
}

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * The `self_hosted` execution mode's {@link ActionInvoker} (docs/protocol.md#execution-modes): every action
 * step goes to the router as `POST {routerUrl}/execute` with `{action: "<plugin>.<action>",
 * input}` (and the step's `runtime` when it has one) and `Idempotency-Key: <execution_id>/<step path>`; no call reaches any other address.
 * The router's answer (docs/protocol.md#action-calls, docs/protocol.md#error-object) becomes the output or the error of that code.
 */
export class RouterInvoker implements ActionInvoker {
  private readonly url: URL;
  private readonly agent: LazyAgent;
  private readonly maxBytes: number;
  private readonly authorization: string | undefined;

  constructor(options: RouterInvokerOptions) {
    this.authorization =
      options.credential !== undefined ? `Bearer ${options.credential}` : undefined;
    this.url = checkRouterUrl(options.routerUrl, 'routerUrl');
    const tls = options.tls;
    this.agent = new LazyAgent({
      keepAliveTimeout: 30_000,
      ...(tls
        ? { connect: { cert: tls.cert, key: tls.key, ...(tls.ca ? { ca: tls.ca } : {}) } }
        : {}),
    });
    this.maxBytes = options.maxResponseBytes ?? 10 * 1024 * 1024;
  }

  /** The router's base URL. */
  get routerUrl(): string {
    return this.url.toString().replace(/\/+$/, '');
  }

  async invoke(call: ActionCall): Promise<InvocationResult> {
    const plugin = targetPlugin(call.target).slug;
    const { context } = call;
    if (context.aborted) throw abortError(context.signal);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
      // The handler's progress comes back as lines before the answer (docs/protocol.md#action-calls).
      'x-weft-progress': 'ndjson',
    };
    if (context.idempotencyKey !== '') headers['idempotency-key'] = context.idempotencyKey;
    if (this.authorization !== undefined) headers['authorization'] = this.authorization;
    // The action span's trace context (tracing passes it on the call), else the active span's.
    if (call.trace !== undefined) Object.assign(headers, call.trace);
    else injectTraceContext(headers);
    let status: number;
    let text: string;
    try {
      const { request } = await loadUndici();
      const response = await request(`${this.routerUrl}/execute`, {
        method: 'POST',
        dispatcher: await this.agent.get(),
        headers,
        body: JSON.stringify({
          action: `${plugin}.${call.action}`,
          input: call.input,
          // The step's runtime block, a weft extension of the request (docs/protocol.md#action-calls).
          ...(call.runtime ? { runtime: call.runtime } : {}),
        }),
        signal: context.signal,
      });
      status = response.statusCode;
      text = withoutProgress(
        (await this.read(response.body as AsyncIterable<Buffer>, plugin, context)).toString('utf8'),
      );
    } catch (error) {
      throw this.failure(error, plugin, call);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new BackendError(
        `${plugin}.${call.action}: the router answered ${status} with a body that is not JSON`,
        {
          backend: 'router',
          original_error: `HTTP ${status}`,
        },
      );
    }
    const record = (typeof json === 'object' && json !== null ? json : {}) as Record<
      string,
      unknown
    >;
    if (status >= 200 && status < 300 && record['status'] === 'success')
      return { output: record['data'] ?? {} };
    if (record['status'] === 'error') throw fromErrorObject(record);
    throw new BackendError(
      `${plugin}.${call.action}: the router answered ${status} without a status (docs/protocol.md#action-calls)`,
      {
        backend: 'router',
        original_error: `HTTP ${status}`,
      },
    );
  }

  /**
   * `GET {routerUrl}{path}` with the router's credential and TLS: a read of the router's server
   * (its routing table `GET /routes`, its registry `GET /plugins/...`). Answers the status, the
   * content type and the body (at most `maxResponseBytes`, else `BACKEND_ERROR`); an unreachable
   * router is `UNAVAILABLE`.
   */
  async get(
    path: string,
    signal?: AbortSignal,
  ): Promise<{ status: number; contentType: string; body: Buffer }> {
    const headers: Record<string, string> = { accept: 'application/json, */*' };
    if (this.authorization !== undefined) headers['authorization'] = this.authorization;
    try {
      const { request } = await loadUndici();
      const response = await request(`${this.routerUrl}${path}`, {
        method: 'GET',
        dispatcher: await this.agent.get(),
        headers,
        ...(signal ? { signal } : {}),
      });
      const type = response.headers['content-type'];
      const body = await this.read(response.body as AsyncIterable<Buffer>, `GET ${path}`);
      return {
        status: response.statusCode,
        contentType: (Array.isArray(type) ? type[0] : type) ?? '',
        body,
      };
    } catch (error) {
      if (error instanceof BackendError) throw error;
      const code = (error as { code?: string }).code ?? '';
      const message = `${error instanceof Error ? error.message : String(error)}${code ? ` (${code})` : ''}`;
      throw new UnavailableError(
        `GET ${path}: cannot read the router at ${this.url.host}: ${message}`,
        {
          backend: 'router',
          suggestion: `start weft server at ${this.routerUrl}, or pass the right routerUrl`,
        },
      );
    }
  }

  /** Closes the connections to the router. */
  async close(): Promise<void> {
    await this.agent.close();
  }

  /**
   * Reads an answer whole (at most `maxResponseBytes`); with `context`, each complete
   * `{"progress": …}` line is reported to it as it arrives.
   */
  private async read(
    body: AsyncIterable<Buffer>,
    plugin: string,
    context?: ActionCall['context'],
  ): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let size = 0;
    let scanned = 0;
    for await (const chunk of body) {
      size += chunk.byteLength;
      if (size > this.maxBytes) {
        throw new BackendError(`${plugin}: the router's answer is over ${this.maxBytes} bytes`, {
          backend: 'router',
          original_error: 'answer too large',
        });
      }
      chunks.push(chunk);
      if (context && chunk.includes(10)) {
        const text = Buffer.concat(chunks).toString('utf8');
        for (let end = text.indexOf('\n', scanned); end >= 0; end = text.indexOf('\n', scanned)) {
          reportProgress(text.slice(scanned, end), context);
          scanned = end + 1;
        }
      }
    }
    return Buffer.concat(chunks);
  }

  private failure(error: unknown, plugin: string, call: ActionCall): WeftError {
    if (error instanceof BackendError) return error;
    if (call.context.signal.aborted) return abortError(call.context.signal);
    const code = (error as { code?: string }).code ?? '';
    if (UNREACHABLE.has(code)) {
      return new UnavailableError(
        `${plugin}.${call.action}: cannot reach the router at ${this.url.host} (${code})`,
        {
          backend: 'router',
          suggestion: `start weft server at ${this.routerUrl}, or pass the right routerUrl`,
        },
      );
    }
    const message = `${error instanceof Error ? error.message : String(error)}${code ? ` (${code})` : ''}`;
    return new BackendError(`${plugin}.${call.action}: the call to the router failed: ${message}`, {
      backend: 'router',
      original_error: message,
    });
  }
}

/** Checks a router URL: absolute http(s), no credentials. Throws `VALIDATION` naming `field`. */
export function checkRouterUrl(text: string | undefined, field: string): URL {
  return checkServerUrl(text, field, { role: 'router', example: 'http://127.0.0.1:8080' });
}

const PROGRESS_LINE = '{"progress":';

/** Reports a `{"progress": {percent, message}}` line to the step's context; ignores others. */
function reportProgress(line: string, context: ActionCall['context']): void {
  if (!line.startsWith(PROGRESS_LINE)) return;
  try {
    const { progress } = JSON.parse(line) as {
      progress?: { percent?: unknown; message?: unknown };
    };
    const percent = progress?.percent;
    if (typeof percent !== 'number' || !Number.isFinite(percent)) return;
    const message = progress?.message;
    context.progress(
      Math.min(100, Math.max(0, percent)),
      typeof message === 'string' ? message.slice(0, 1000) : undefined,
    );
  } catch {
    // A malformed progress line is dropped: progress is advisory, the answer decides.
  }
}

/** The answer of a body that may start with progress lines: its last non-empty line. */
function withoutProgress(text: string): string {
  if (!text.startsWith(PROGRESS_LINE)) return text;
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  return lines.at(-1) ?? '';
}
