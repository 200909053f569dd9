import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { replyWithError, type ErrorReply } from '@weft/core';
import type { Router } from '../router.js';
import { executeCheck } from './auth.js';
import { CallerGone } from './caller-gone.js';
import { readExecuteBody } from './execute-body.js';

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

/** Where internal errors of the fast path are logged (the server's logger). */
export interface ErrorLog {
  error(details: object, message: string): void;
}

/** The installed fast path: {@link disable} hands every request back to Fastify. */
export interface ExecuteFastPath {
  disable(): void;
}

/** The content types the fast path takes; any other goes to Fastify (and its 415). */
const JSON_TYPES = new Set(['application/json', 'application/json; charset=utf-8']);

/**
 * Answers the router's `POST /execute` (docs/protocol.md#action-calls) from a node:http request
 * listener in front of Fastify on the same server, so that a connector call skips the
 * framework's routing, hook chains, content-type parser and reply pipeline (the largest part of
 * the router's own latency; issue 20). It does what the Fastify route does, in the same order:
 * the credential check ({@link executeCheck}: router token or API key, unless execute is open),
 * the body read as bytes and checked by {@link readExecuteBody}, dispatch, and the answer or the
 * error object with its status. It takes only the plain case: exactly `POST /execute`, a JSON
 * content type and a `Content-Length` from 1 byte to the body limit (Node's parser holds the
 * body to it). Anything else (another path or method, chunked or oversized bodies, other content
 * types, mutual TLS) goes to Fastify untouched, which answers as before (413, 415, ...).
 * Nothing is installed when the router requires client certificates.
 */
export function installExecuteFastPath(
  server: Server,
  router: Router,
  log: ErrorLog,
): ExecuteFastPath {
  const { options, dispatcher } = router;
  if (options.requireClientCert) return { disable() {} };
  const check = options.openExecute
    ? undefined
    : executeCheck({ token: options.token, authenticate: options.authenticate });
  const limit = options.bodyLimit;
  const others = server.listeners('request') as Listener[];
  const next: Listener = (request, response) => {
    for (const listener of others) listener.call(server, request, response);
  };
  let enabled = true;

  const run = async (request: IncomingMessage, response: ServerResponse, raw: Buffer) => {
    try {
      const call = readExecuteBody(raw);
      const timeout = request.headers['x-weft-timeout-ms'];
      const answer = await dispatcher.send(
        call.plugin,
        call.name,
        call.body,
        request.headers,
        typeof timeout === 'string' ? timeout : undefined,
        new CallerGone(response),
      );
      if (response.destroyed) return;
      const headers: Record<string, string | number> = {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(answer.body),
      };
      if (answer.instanceId !== undefined) headers['x-weft-instance-id'] = answer.instanceId;
      response.writeHead(answer.statusCode, headers);
      response.end(answer.body);
    } catch (error) {
      fail(response, error, log);
    }
  };

  const read = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void run(request, response, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
    // The caller went away mid-body: nothing was dispatched.
    request.on('error', () => response.destroy());
  };

  const listener: Listener = (request, response) => {
    if (!enabled || !takes(request, limit)) return next(request, response);
    if (!check) return read(request, response);
    check(request.headers.authorization, (error) =>
      error ? fail(response, error, log) : read(request, response),
    );
  };
  server.removeAllListeners('request');
  server.on('request', listener);
  return {
    disable() {
      enabled = false;
    },
  };
}

/** Whether the fast path answers `request` (see {@link installExecuteFastPath}). */
function takes(request: IncomingMessage, limit: number): boolean {
  if (request.method !== 'POST' || request.url !== '/execute') return false;
  const { headers } = request;
  const type = headers['content-type'];
  if (type === undefined || !JSON_TYPES.has(type.toLowerCase())) return false;
  const length = headers['content-length'];
  if (length === undefined || headers['transfer-encoding'] !== undefined) return false;
  const bytes = Number(length);
  return Number.isInteger(bytes) && bytes >= 1 && bytes <= limit;
}

/** The error object (docs/protocol.md#error-object) with its status, as the Fastify route answers it. */
function fail(response: ServerResponse, error: unknown, log: ErrorLog): void {
  replyWithError(error, { log }, new RawReply(response));
}

/** The part of a Fastify reply {@link replyWithError} uses, on a bare `ServerResponse`. */
class RawReply implements ErrorReply<RawReply> {
  private status = 500;
  private readonly headers: Record<string, string | number> = {};

  constructor(private readonly response: ServerResponse) {}

  code(status: number): this {
    this.status = status;
    return this;
  }

  header(name: string, value: string): this {
    this.headers[name.toLowerCase()] = value;
    return this;
  }

  type(contentType: string): this {
    // As Fastify's error path sends it.
    this.headers['content-type'] =
      contentType === 'application/json' ? 'application/json; charset=utf-8' : contentType;
    return this;
  }

  send(body: string): this {
    const { response } = this;
    if (response.headersSent || response.destroyed) return this;
    this.headers['content-length'] = Buffer.byteLength(body);
    response.writeHead(this.status, this.headers);
    response.end(body);
    return this;
  }
}
