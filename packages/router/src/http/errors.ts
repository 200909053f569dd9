import type { FastifyReply, FastifyRequest } from 'fastify';
import { replyWithError } from '@weft/core';

/** Error handler of the router's routes: the §2.10 body with its DESIGN.md §4 status. */
export function sendError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  return replyWithError(error, request, reply);
}
