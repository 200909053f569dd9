import type { TLSSocket } from 'node:tls';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError, UnauthorizedError } from '@weft/core';

/** What a router route requires of its caller. */
export interface Guard {
  /** Bearer token (registration and the table only). */
  token: string | undefined;
  /** A client certificate verified by the server's TLS layer (every router route). */
  clientCert: boolean;
}

const BEARER = /^Bearer\s+(.+)$/i;

/**
 * Whether `presented` is `expected`, in a time that depends on the length of `expected` only:
 * every code unit of `expected` is compared, with no early exit, whatever `presented` is (its
 * length included). A loop in JavaScript rather than SHA-256 of both sides and
 * `crypto.timingSafeEqual`: the credential check runs on every execute, and the hash's call
 * into OpenSSL cost 5–8 µs of the router's latency per call, a large share of it.
 */
export function constantTimeEqual(presented: string, expected: string): boolean {
  let difference = presented.length ^ expected.length;
  const n = presented.length || 1;
  for (let i = 0; i < expected.length; i++)
    difference |= expected.charCodeAt(i) ^ presented.charCodeAt(i % n);
  return difference === 0;
}

/** An `onRequest` hook enforcing `guard`; refusals are `UNAUTHORIZED` (401) and change nothing. */
export function guardHook(guard: Guard) {
  const expected = guard.token;
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    if (guard.clientCert) {
      const socket = request.raw.socket as Partial<TLSSocket>;
      if (socket.encrypted !== true || socket.authorized !== true) {
        const why =
          socket.encrypted !== true
            ? 'the connection is not TLS'
            : (socket.authorizationError?.toString() ?? 'no client certificate was sent');
        throw new UnauthorizedError(
          `this router requires mutual TLS: present a client certificate signed by its client CA (${why})`,
          { scheme: 'mtls' },
        );
      }
    }
    if (expected !== undefined) {
      const header = request.headers.authorization ?? '';
      const match = BEARER.exec(header);
      if (!match || !constantTimeEqual(match[1]!.trim(), expected)) {
        throw new UnauthorizedError(
          match
            ? 'the router token is not valid'
            : 'registration needs the router token: send Authorization: Bearer <WEFT_ROUTER_TOKEN>',
          { scheme: 'bearer' },
        );
      }
    }
  };
}

/** What `POST /execute` accepts as a credential (see {@link executeHook}). */
export interface ExecuteGuard {
  /** The router token (`WEFT_ROUTER_TOKEN`). */
  token: string | undefined;
  /** The server's credentials: API keys, identity-provider tokens. */
  authenticate: ((authorization: string | undefined) => Promise<unknown>) | undefined;
}

/**
 * The `onRequest` hook of `POST /execute` without mutual TLS: `Authorization: Bearer` with the
 * router token or a credential `authenticate` accepts (an API key). Refusals are `UNAUTHORIZED`
 * (401) and reach no instance. The router token is compared first (a hash and one comparison),
 * so connector-to-router calls with it never touch the key store.
 */
export function executeHook(guard: ExecuteGuard) {
  const check = executeCheck(guard);
  return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void =>
    check(request.headers.authorization, done);
}

/**
 * The credential check of {@link executeHook} on the `Authorization` header alone (the router's
 * `POST /execute` fast path uses it too). It calls `done` with no argument when the credential is
 * accepted, with the `UNAUTHORIZED` error otherwise: synchronously for the router token (every
 * connector call makes no promise), after `authenticate` for anything else.
 */
export function executeCheck(guard: ExecuteGuard) {
  const expected = guard.token;
  const { authenticate } = guard;
  return (header: string | undefined, done: (error?: Error) => void): void => {
    const match = header === undefined ? null : BEARER.exec(header);
    if (!match) {
      return done(
        new UnauthorizedError(
          `running an action through the router needs a credential: send Authorization: Bearer <API key>${expected ? ' (or the router token)' : ''}`,
          { scheme: 'bearer', reason: header === undefined ? 'missing' : 'malformed' },
        ),
      );
    }
    if (expected !== undefined && constantTimeEqual(match[1]!.trim(), expected)) return done();
    if (authenticate === undefined) {
      return done(new UnauthorizedError('the router token is not valid', { scheme: 'bearer' }));
    }
    authenticate(header).then(() => done(), done);
  };
}

/**
 * The `onRequest` hook of `GET /routes` when a router token is set (without mutual TLS): the
 * token, as registration takes it, or an admin key of the server, which the console's Routes
 * page sends. Another key is `FORBIDDEN` (403); no credential or an invalid one `UNAUTHORIZED`.
 */
export function tableHook(guard: ExecuteGuard) {
  const expected = guard.token;
  const { authenticate } = guard;
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const header = request.headers.authorization;
    const match = header === undefined ? null : BEARER.exec(header);
    if (match && expected !== undefined && constantTimeEqual(match[1]!.trim(), expected)) return;
    if (!match || authenticate === undefined) {
      throw new UnauthorizedError(
        `the routing table needs the router token${authenticate ? ' or an admin key' : ''}: send Authorization: Bearer <token>`,
        { scheme: 'bearer', reason: match ? 'invalid' : 'missing' },
      );
    }
    const principal = (await authenticate(header)) as { admin?: unknown } | undefined;
    if (principal?.admin !== true) {
      throw new ForbiddenError('the routing table is for the router token and admin keys', {
        reason: 'admin_required',
      });
    }
  };
}
