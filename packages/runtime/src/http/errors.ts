import type { FastifyReply, FastifyRequest } from 'fastify';
import { replyWithError } from '@weft/http';

/** Error handler of the runtime routes: the error object (docs/protocol.md#error-object) with its status (docs/design.md#errors). */
export function sendRuntimeError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  return replyWithError(error, request, reply);
}
