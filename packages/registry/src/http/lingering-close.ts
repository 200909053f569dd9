import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** The longest a connection stays open after its answer, reading what the client still sends. */
export const LINGER_MS = 2_000;
/** The most bytes read (and dropped) in that time. */
export const LINGER_BYTES = 16 * 1024 * 1024;

/**
 * Lets an answer sent before the request's body was read whole reach the client. Such an answer
 * (the 413 of a body over the limit, any error of a body parser) closes the connection, and
 * closing a socket with unread bytes makes the kernel reset it: a client still sending then
 * loses the answer it had not read yet, and sees `ECONNRESET`/`EPIPE` instead of the error
 * object. So, as nginx's lingering close, the socket sends its end after the answer, then reads
 * and drops what the client still sends until the client closes its side, {@link LINGER_BYTES}
 * or {@link LINGER_MS}, whichever comes first, and only then closes.
 */
export function lingerBeforeClose(app: FastifyInstance): void {
  // An error hook: only answers sent as errors pass here (a body parser's refusal is one), so
  // successful answers pay nothing.
  app.addHook('onError', (request, reply, _error, done) => {
    if (reply.getHeader('connection') === 'close' && !request.raw.complete) {
      linger(request.raw.socket);
    }
    done();
  });
}

/** Makes the `destroySoon` Node's HTTP server calls after a closing answer linger. */
function linger(socket: Socket): void {
  socket.destroySoon = () => {
    let read = 0;
    const close = () => socket.destroy();
    const timer = setTimeout(close, LINGER_MS);
    timer.unref();
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
