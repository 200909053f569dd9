import type { FastifyRequest } from 'fastify';
import { UnauthorizedError, type Principal } from '@weft/core';
import type { RegistryService } from '../service.js';

const principals = new WeakMap<FastifyRequest, Principal>();

/** An `onRequest` hook: authenticates before the body is read, so a missing key costs nothing. */
export function requireKey(service: RegistryService) {
  return async (request: FastifyRequest): Promise<void> => {
    principals.set(request, await service.authenticate(request.headers.authorization));
  };
}

/** An `onRequest` hook for reads: a key is needed only on a private registry. */
export function readAccess(service: RegistryService) {
  return async (request: FastifyRequest): Promise<void> => {
    await service.authorizeRead(request.headers.authorization);
  };
}

/** The principal {@link requireKey} authenticated. */
export function principalOf(request: FastifyRequest): Principal {
  const principal = principals.get(request);
  if (!principal) throw new UnauthorizedError('this needs an API key', { reason: 'missing' });
  return principal;
}
