import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Socket } from 'node:net';

/** The longest a connection stays open after its answer, reading what the client still sends. */
export const LINGER_MS = 2_000;
/** The most bytes read (and dropped) in that time. */
export const LINGER_BYTES = 16 * 1024 * 1024;

/**
 * Lets an answer sent before the request's body was read whole reach the client. Such an answer
 * (the 413 of a body over the limit, any error of a body parser) closes the connection, and
 * closing a socket with unread bytes makes the kernel reset it: a client still sending then sees
 * `EPIPE`/`ECONNRESET` instead of the error object. So, as nginx's lingering close, when
 * `closing` and the body is not read whole, the socket sends its end after the answer, then reads
 * and drops what the client still sends until the client closes its side, {@link LINGER_BYTES} or
 * {@link LINGER_MS}, whichever comes first, and only then closes. Call it from an error hook
 * (Fastify's `onError`: `closing` is its reply's `connection: close` header), before the answer
 * is sent.
 */
export function lingerIfBodyUnread(
  request: Pick<IncomingMessage, 'complete' | 'socket'>,
  closing: boolean,
): void {
  if (closing && !request.complete) linger(request.socket);
}

/** Makes the `destroySoon` Node's HTTP server calls after a closing answer linger. */
function linger(socket: Socket): void {
  socket.destroySoon = () => {
    let read = 0;
    const close = () => socket.destroy();
    // Not unref'd: the socket holds the process anyway, and its close (at the latest after
    // LINGER_MS) clears the timer.
    const timer = setTimeout(close, LINGER_MS);
    socket.once('close', () => clearTimeout(timer));
    socket.once('end', close);
    socket.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > LINGER_BYTES) close();
    });
    socket.end();
    socket.resume();
  };
}

/**
 * Adds the `onError` hook that calls {@link lingerIfBodyUnread}: an answer sent before the body
 * was read whole (a body parser's refusal, a 413) reaches a client that is still sending. Only
 * answers sent as errors pass there: success pays nothing.
 */
export function lingerOnError(app: FastifyInstance): void {
  app.addHook('onError', (request, reply, _error, done) => {
    lingerIfBodyUnread(request.raw, reply.getHeader('connection') === 'close');
    done();
  });
}
