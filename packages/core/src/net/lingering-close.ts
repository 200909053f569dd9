/** The parts of a Node `net.Socket` a lingering close uses (core uses no Node API itself). */
export interface LingeringSocket {
  destroySoon(): void;
  destroy(): void;
  end(): void;
  resume(): void;
  once(event: 'close' | 'end', listener: () => void): unknown;
  on(event: 'data', listener: (chunk: { length: number }) => void): unknown;
}

/** The parts of a Node `IncomingMessage` it reads. */
export interface LingeringRequest {
  /** Whether the whole body has been read. */
  readonly complete: boolean;
  readonly socket: LingeringSocket;
}

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
export function lingerIfBodyUnread(request: LingeringRequest, closing: boolean): void {
  if (closing && !request.complete) linger(request.socket);
}

/** Makes the `destroySoon` Node's HTTP server calls after a closing answer linger. */
function linger(socket: LingeringSocket): void {
  socket.destroySoon = () => {
    let read = 0;
    const close = () => socket.destroy();
    // Not unref'd (core is also bundled for browsers): the socket holds the process anyway, and
    // its close (at the latest after LINGER_MS) clears the timer.
    const timer = setTimeout(close, LINGER_MS);
    socket.once('close', () => clearTimeout(timer));
    socket.once('end', close);
    socket.on('data', (chunk) => {
      read += chunk.length;
      if (read > LINGER_BYTES) close();
    });
    socket.end();
    socket.resume();
  };
}
