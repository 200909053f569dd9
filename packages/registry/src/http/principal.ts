import type { FastifyRequest } from 'fastify';
import type { RegistryService } from '../service.js';

/** An `onRequest` hook for reads: a credential is needed only on a private registry. */
export function readAccess(service: RegistryService) {
  return async (request: FastifyRequest): Promise<void> => {
    await service.authorizeRead(request.headers.authorization);
  };
}
