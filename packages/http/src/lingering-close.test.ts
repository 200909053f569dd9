import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpApp } from './app.js';
import { LINGER_MS } from './lingering-close.js';

// A client that is still sending when the server refuses its body must get the refusal, not a
// reset: the server lingers (reads and drops) before it closes. Over real loopback TCP.
let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How many connections the server holds. */
const connections = () =>
  new Promise<number>((resolve, reject) =>
    app!.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );

async function serve(): Promise<number> {
  app = await createHttpApp({ bodyLimit: 1024 });
  app.post('/things', async () => ({ ok: true }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as AddressInfo).port;
}

/** What the client reads after it sent over the limit, paused, and then sent more. */
async function sendOnAfterRefusal(port: number): Promise<{ text: string; error?: string }> {
  const socket: Socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.pause(); // the answer waits in the kernel, unread, as in a busy client
  let error: string | undefined;
  socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code));
  const chunk = (size: number) => `${size.toString(16)}\r\n${'x'.repeat(size)}\r\n`;
  socket.write(
    'POST /things HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
  );
  socket.write(chunk(4096));
  await sleep(300); // the server has refused and answered by now
  for (let i = 0; i < 4; i++) {
    socket.write(chunk(4096));
    await sleep(50);
  }
  await sleep(200);
  let text = '';
  socket.on('data', (data: Buffer) => (text += data.toString()));
  socket.resume();
  await Promise.race([new Promise((resolve) => socket.once('close', resolve)), sleep(3000)]);
  socket.destroy();
  return { text, ...(error ? { error } : {}) };
}

describe('lingering close', () => {
  it('lets a client that goes on sending read the 413 sent before its body ended', async () => {
    const port = await serve();
    const { text, error } = await sendOnAfterRefusal(port);
    // Without the lingering close: the second write meets a reset (EPIPE or ECONNRESET).
    expect(error).toBeUndefined();
    expect(text).toMatch(/^HTTP\/1\.1 413/);
    expect(text).toContain('"code":"PAYLOAD_TOO_LARGE"');
  });

  it('closes a connection whose client keeps its side open once the linger time is over', async () => {
    const port = await serve();
    // allowHalfOpen: the client does not end its side when the server ends its own.
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /things HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 2000\r\n\r\n${'x'.repeat(1500)}`,
    );
    let text = '';
    let ended = false;
    socket.on('data', (data: Buffer) => (text += data.toString()));
    socket.on('end', () => (ended = true));
    socket.on('error', () => {});
    await sleep(300);
    // The answer and the server's end arrived; the server still holds the connection, lingering.
    expect(text).toMatch(/^HTTP\/1\.1 413/);
    expect(ended).toBe(true);
    expect(await connections()).toBe(1);
    // Then it closes it, though the client never closes its side.
    await expect.poll(connections, { timeout: LINGER_MS + 3_000, interval: 100 }).toBe(0);
    socket.destroy();
  });
});
