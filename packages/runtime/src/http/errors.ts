import type { FastifyReply, FastifyRequest } from 'fastify';
import { replyWithError } from '@weft/core';

/** Error handler of the runtime routes: the §2.10 error object with its DESIGN.md §4 status. */
export function sendRuntimeError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  return replyWithError(error, request, reply);
}
