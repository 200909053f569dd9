import type { FastifyReply, FastifyRequest } from 'fastify';
import { replyWithError } from '@weft/http';

/** Error handler of the router's routes: the body (docs/protocol.md#error-object) with its status (docs/design.md#errors). */
export function sendError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  return replyWithError(error, request, reply);
}
