import type { FastifyRequest } from 'fastify';
import { UnauthorizedError, type Principal } from '@weft/core';
import type { Runtime } from '../runtime.js';

const principals = new WeakMap<FastifyRequest, Principal>();

/** An `onRequest` hook: authenticates the bearer key before the body is read. */
export function requireKey(runtime: Runtime) {
  return async (request: FastifyRequest): Promise<void> => {
    principals.set(request, await runtime.options.authenticate(request.headers.authorization));
  };
}

/** The principal {@link requireKey} authenticated. */
export function principalOf(request: FastifyRequest): Principal {
  const principal = principals.get(request);
  if (!principal) throw new UnauthorizedError('this needs an API key', { reason: 'missing' });
  return principal;
}
