import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { HTTP_STATUS, toErrorObject, WeftError } from '@weft/core';
import { installDepthCheckedJson, lingerOnError } from '@weft/http';
import { continueTrace } from '@weft/telemetry';
import type { ConnectorHost, HostAnswer, ProgressListener } from './host.js';

/** `POST /execute` and `GET /healthz` of a connector service (docs/protocol.md#connector-services) as a Fastify plugin. */
export function connectorServiceRoutes(host: ConnectorHost) {
  return async function routes(app: FastifyInstance): Promise<void> {
    // A refused body's answer reaches a client that is still sending (a lingering close).
    lingerOnError(app);
    // Nesting is checked on the text, before parsing and before a handler walks the input.
    installDepthCheckedJson(app);
    app.setErrorHandler((error, _request, reply) => {
      if (error instanceof WeftError) {
        const object = toErrorObject(error);
        return reply.code(HTTP_STATUS[object.code]).send(object);
      }
      const statusCode = (error as { statusCode?: number }).statusCode ?? 500;
      const code =
        statusCode === 413
          ? 'PAYLOAD_TOO_LARGE'
          : statusCode < 500
            ? 'VALIDATION'
            : 'INTERNAL_ERROR';
      const details =
        code === 'VALIDATION'
          ? { field: 'body', constraint: 'syntax' }
          : code === 'INTERNAL_ERROR'
            ? { error_type: 'Error', stack_trace: '' }
            : {};
      const message = code === 'INTERNAL_ERROR' ? 'internal error' : (error as Error).message;
      const status = code === 'VALIDATION' ? 400 : code === 'PAYLOAD_TOO_LARGE' ? 413 : 500;
      return reply.code(status).send({ status: 'error', code, message, details });
    });
    app.post('/execute', async (request, reply) => {
      const lines =
        request.headers[PROGRESS_HEADER] === 'ndjson' ? progressLines(reply) : undefined;
      const answer = await executeTraced(
        host,
        request.body,
        undefined,
        request.headers,
        callerGone(reply.raw),
        lines?.report,
      );
      if (lines?.started) return lines.end(answer);
      return reply.code(answer.statusCode).send(answer.body);
    });
    app.get('/healthz', async (_request, reply) => {
      const answer = await host.health();
      return reply.code(answer.statusCode).send(answer.body);
    });
  };
}

/** Asks a connector service for its handler's progress as it runs (value `ndjson`). */
export const PROGRESS_HEADER = 'x-weft-progress';

/**
 * Progress lines of a call whose caller asked for them ({@link PROGRESS_HEADER}: the router,
 * for a run's `step.progress` events): at the first report the answer becomes
 * `application/x-ndjson` with status 200, one `{"progress":{percent,message}}` line per report,
 * then the answer object (success or error object) as its last line. A call that reports
 * nothing is answered as usual.
 */
function progressLines(reply: FastifyReply) {
  const state = {
    started: false,
    report: ((percent, message) => {
      if (reply.raw.writableEnded || reply.raw.destroyed) return;
      if (!state.started) {
        state.started = true;
        reply.hijack();
        reply.raw.writeHead(200, {
          'content-type': 'application/x-ndjson',
          'cache-control': 'no-store',
        });
      }
      const progress = { percent, ...(message !== undefined ? { message } : {}) };
      reply.raw.write(`${JSON.stringify({ progress })}\n`);
    }) as ProgressListener,
    end(answer: HostAnswer): FastifyReply {
      reply.raw.end(`${JSON.stringify(answer.body)}\n`);
      return reply;
    },
  };
  return state;
}

/**
 * A signal that fires when the response's connection closes before the answer was written: the
 * caller (the router, after a cancel or its timeout) gave up, so the handler should stop.
 */
export function callerGone(response: ServerResponse): AbortSignal {
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) controller.abort();
  });
  return controller.signal;
}

/**
 * `host.execute` for an HTTP call: under its `Idempotency-Key`, and, when the call carries
 * `traceparent`, in a SERVER span `execute <plugin>.<action>` continuing that trace, so the
 * handler's own spans nest under the action's (with the process's OpenTelemetry SDK).
 */
export function executeTraced(
  host: ConnectorHost,
  body: unknown,
  pathPlugin: string | undefined,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  signal: AbortSignal,
  onProgress?: ProgressListener,
): Promise<HostAnswer> {
  const run = () =>
    host.execute(body, pathPlugin, idempotencyKey(headers['idempotency-key']), signal, onProgress);
  if (headers['traceparent'] === undefined) return run();
  const action = (body as { action?: unknown } | null)?.action;
  const name = typeof action === 'string' ? action.slice(0, 200) : 'unknown';
  return continueTrace(
    headers,
    `execute ${name}`,
    {
      attributes: { 'weft.action': name },
      failed: (answer) => (answer.body.status === 'success' ? undefined : answer.body.code),
    },
    run,
  );
}

/** The `Idempotency-Key` header value (first one, bounded). */
export function idempotencyKey(value: string | string[] | undefined): string {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first.slice(0, 512) : '';
}
