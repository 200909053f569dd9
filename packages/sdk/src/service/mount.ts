import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import {
  assertJsonTextDepth,
  NotFoundError,
  PayloadTooLargeError,
  toErrorObject,
  ValidationError,
} from '@weft/core';
import type { LocalInvoker } from '../invoker/local-invoker.js';
import { ConnectorHost, type ConnectorHostOptions } from './host.js';
import { callerGone, executeTraced } from './routes.js';

/** What to serve: a {@link ConnectorHost}, or the invoker of a `Weft` client (`weft.invoker`). */
export type ConnectorSource = ConnectorHost | LocalInvoker | ConnectorHostOptions;

function hostOf(source: ConnectorSource): ConnectorHost {
  if (source instanceof ConnectorHost) return source;
  if ('invoker' in source) return new ConnectorHost(source);
  return new ConnectorHost({ invoker: source });
}

/**
 * A Fastify plugin adding `POST /<plugin_slug>/execute` for every plugin served (docs/protocol.md#connector-services,
 * last line). Mount it under a prefix: `app.register(connectorRoutes(weft.invoker), { prefix: '/plugins' })`.
 */
export function connectorRoutes(source: ConnectorSource) {
  const host = hostOf(source);
  return async function connectors(app: FastifyInstance): Promise<void> {
    app.post<{ Params: { plugin_slug: string } }>(
      '/:plugin_slug/execute',
      async (request, reply) => {
        const answer = await executeFor(
          host,
          request.params.plugin_slug,
          request.body,
          request.headers,
          callerGone(reply.raw),
        );
        return reply.code(answer.statusCode).send(answer.body);
      },
    );
  };
}

/** Options of {@link connectorMiddleware}. */
export interface MiddlewareOptions {
  /** Mount prefix such as `/plugins` (default: none). */
  prefix?: string;
  /** Largest request body in bytes. Default 1 MiB. */
  bodyLimit?: number;
}

type Next = (error?: unknown) => void;

/**
 * A request handler serving `POST <prefix>/<plugin_slug>/execute` for Express (`app.use(...)`)
 * and plain `node:http` servers (call it first in your handler: it answers and returns true, or
 * returns false — after calling `next` when given — for any other request). Uses `req.body` when
 * a body parser already read it (e.g. `express.json()`), else reads the JSON body itself.
 */
export function connectorMiddleware(source: ConnectorSource, options: MiddlewareOptions = {}) {
  const host = hostOf(source);
  const prefix = (options.prefix ?? '').replace(/\/+$/, '');
  const limit = options.bodyLimit ?? 1024 * 1024;
  const pattern = new RegExp(`^${escape(prefix)}/([^/?]+)/execute(?:\\?.*)?$`);
  return (
    req: IncomingMessage & { body?: unknown; originalUrl?: string },
    res: ServerResponse,
    next?: Next,
  ): boolean => {
    const match = req.method === 'POST' ? pattern.exec(req.originalUrl ?? req.url ?? '') : null;
    if (!match) {
      next?.();
      return false;
    }
    const gone = callerGone(res);
    void (async () => {
      let answer;
      try {
        const body = req.body !== undefined ? req.body : await readJson(req, limit);
        answer = await executeFor(host, decodeURIComponent(match[1]!), body, req.headers, gone);
      } catch (error) {
        const object = toErrorObject(error);
        answer = { statusCode: object.code === 'PAYLOAD_TOO_LARGE' ? 413 : 400, body: object };
      }
      res.statusCode = answer.statusCode;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(answer.body));
    })();
    return true;
  };
}

async function executeFor(
  host: ConnectorHost,
  plugin: string,
  body: unknown,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  signal: AbortSignal,
) {
  if (!host.plugins().includes(plugin)) {
    const error = new NotFoundError(
      `this service does not serve plugin "${plugin}" (it serves ${host.plugins().join(', ') || 'none'})`,
      { plugin_slug: plugin },
    );
    return { statusCode: 404, body: toErrorObject(error) };
  }
  return executeTraced(host, body, plugin, headers, signal);
}

async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > limit)
      throw new PayloadTooLargeError(`the request body is over ${limit} bytes`, { limit });
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  assertJsonTextDepth(text);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ValidationError('the body is not JSON', { field: 'body', constraint: 'syntax' });
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
