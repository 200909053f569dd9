import type { FastifyRequest } from 'fastify';
import { UnauthorizedError, type Principal } from '@weft/core';
import type { Authenticate } from './authenticator.js';

const principals = new WeakMap<FastifyRequest, Principal>();

/**
 * An `onRequest` hook that authenticates the `Authorization` header before the body is read (a
 * request without a valid credential costs nothing more) and keeps the principal for
 * {@link principalOf}. The one hook every weft HTTP surface uses: registry, runtime, deployments.
 */
export function requirePrincipal(authenticate: Authenticate) {
  return async (request: FastifyRequest): Promise<void> => {
    principals.set(request, await authenticate(request.headers.authorization));
  };
}

/** The principal {@link requirePrincipal} authenticated for this request. */
export function principalOf(request: FastifyRequest): Principal {
  const principal = principals.get(request);
  if (!principal) throw new UnauthorizedError('this needs a credential', { reason: 'missing' });
  return principal;
}
