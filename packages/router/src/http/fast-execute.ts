import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { SLUG_PATTERN } from '@weft/core';
import { replyWithError, type ErrorReply } from '@weft/http';
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

/**
 * Whether the app routes `POST <url>` (of the form `/<slug>/execute`) to the router's
 * `POST /{plugin_slug}/execute`, rather than to a route of its own such as `/actions/execute`.
 */
export type OwnsPluginExecute = (url: string) => boolean;

/** The content types the fast path takes; any other goes to Fastify (and its 415). */
const JSON_TYPES = new Set(['application/json', 'application/json; charset=utf-8']);
/** `/<slug>/execute` with a slug as the route's parameter schema takes it (no escapes). */
const PLUGIN_EXECUTE = /^\/([^/]+)\/execute$/;
const SLUG = new RegExp(SLUG_PATTERN);
/** How many paths {@link installExecuteFastPath} remembers the app's route of. */
const OWNED_CACHE = 1024;

/**
 * Answers the router's `POST /execute` and `POST /{plugin_slug}/execute`
 * (docs/protocol.md#action-calls) from a node:http request listener in front of Fastify on the
 * same server, so that a connector call skips the framework's routing, hook chains, content-type
 * parser and reply pipeline (the largest part of the router's own latency). It does
 * what the Fastify routes do, in the same order: the credential check ({@link executeCheck}:
 * router token or API key, unless execute is open), the body read as bytes and checked by
 * {@link readExecuteBody}, dispatch, and the answer or the error object with its status. It
 * takes only the plain case: exactly `POST /execute`, or `POST /<slug>/execute` with a slug the
 * route's schema accepts on a path `owns` says the app gives to the router (without `owns`, none),
 * a JSON content type and a `Content-Length` from 1 byte to the body limit (Node's parser holds
 * the body to it). Anything else (another path or method, a query string, chunked or oversized
 * bodies, other content types, mutual TLS) goes to Fastify untouched, which answers as before
 * (400, 413, 415, ...). Nothing is installed when the router requires client certificates.
 */
export function installExecuteFastPath(
  server: Server,
  router: Router,
  log: ErrorLog,
  owns?: OwnsPluginExecute,
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
  // The app's routes are fixed once it listens: its answer per path is kept (a bounded map).
  const owned = new Map<string, boolean>();
  const ownedBy = (url: string): boolean => {
    let yes = owned.get(url);
    if (yes === undefined) {
      yes = owns!(url);
      if (owned.size >= OWNED_CACHE) owned.clear();
      owned.set(url, yes);
    }
    return yes;
  };
  /** The path's plugin slug ('' for `/execute`), or undefined when Fastify takes the request. */
  const target = (request: IncomingMessage): string | undefined => {
    // A call that asks for progress lines is answered by the Fastify route, which streams them.
    if (!enabled || request.method !== 'POST' || request.headers['x-weft-progress'] !== undefined)
      return undefined;
    const url = request.url!;
    let slug: string | undefined;
    if (url === '/execute') slug = '';
    else if (owns) {
      const found = PLUGIN_EXECUTE.exec(url)?.[1];
      if (found !== undefined && SLUG.test(found)) slug = found;
    }
    if (slug === undefined || !plain(request, limit)) return undefined;
    return slug === '' || ownedBy(url) ? slug : undefined;
  };

  const run = async (
    request: IncomingMessage,
    response: ServerResponse,
    raw: Buffer,
    slug: string,
  ) => {
    try {
      const call = readExecuteBody(raw, slug === '' ? undefined : slug);
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

  const read = (request: IncomingMessage, response: ServerResponse, slug: string) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void run(request, response, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), slug);
    });
    // The caller went away mid-body: nothing was dispatched.
    request.on('error', () => response.destroy());
  };

  const listener: Listener = (request, response) => {
    const slug = target(request);
    if (slug === undefined) return next(request, response);
    if (!check) return read(request, response, slug);
    check(request.headers.authorization, (error) =>
      error ? fail(response, error, log) : read(request, response, slug),
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

/** Whether `request` has the headers the fast path takes (see {@link installExecuteFastPath}). */
function plain(request: IncomingMessage, limit: number): boolean {
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
