import { Type } from '@weft/core/typebox';
import type { FastifyInstance } from 'fastify';
import {
  AddSigningKeyRequest,
  CreatedKey,
  CreateKeyRequest,
  RevokedKey,
  SigningKeyInfo,
  WhoAmI,
} from '@weft/core';
import { typed } from '@weft/http';
import type { RegistryService } from '../service.js';
import { principalOf, requirePrincipal } from '@weft/identity';
import { bearer, errorResponses } from './schemas.js';

/** Signing-key upload, API-key creation and the caller's identity. */
export function registerKeyRoutes(app: FastifyInstance, service: RegistryService): void {
  const api = typed(app);
  const auth = requirePrincipal(service.authenticate);
  api.post(
    '/keys',
    {
      onRequest: auth,
      schema: {
        summary: 'Upload an armored OpenPGP public key of the caller’s owner',
        tags: ['keys'],
        security: bearer,
        body: AddSigningKeyRequest,
        response: { 200: SigningKeyInfo, 201: SigningKeyInfo, ...errorResponses(400, 401, 413) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { created, key } = await service.addSigningKey(principal, request.body.armored_key);
      return reply.code(created ? 201 : 200).send(key);
    },
  );

  api.post(
    '/auth/keys',
    {
      onRequest: auth,
      schema: {
        summary: 'Create an API key (admin key)',
        tags: ['keys'],
        security: bearer,
        body: CreateKeyRequest,
        response: { 201: CreatedKey, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      return reply.code(201).send(await service.createKey(principal, request.body));
    },
  );

  api.delete(
    '/auth/keys/:id',
    {
      onRequest: auth,
      schema: {
        summary: 'Revoke an API key (admin key); every server refuses it within 0.5 s',
        tags: ['keys'],
        security: bearer,
        params: Type.Object({
          id: Type.String({ description: 'The key id: 12 hex digits' }),
        }),
        response: { 200: RevokedKey, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => service.revokeKey(principalOf(request), request.params.id),
  );

  api.get(
    '/auth/whoami',
    {
      onRequest: auth,
      schema: {
        summary: 'The caller as the server sees it: kind, subject, owner, roles and permissions',
        tags: ['keys'],
        security: bearer,
        response: { 200: WhoAmI, ...errorResponses(401, 503) },
      },
    },
    async (request) => {
      const { kind, subject, owner, name, admin, roles, permissions } = principalOf(request);
      return { kind, subject, owner, name, admin, roles, permissions };
    },
  );
}
