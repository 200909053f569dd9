import { connect } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createConnectorService, type ConnectorService } from './service.js';

// A connector service refuses a body over its limit (1 MiB) with the error object as soon as the
// streamed body passes it, and a caller that is still sending reads that answer, not a reset
// (the lingering close of @weft/http). Over real loopback TCP.
let service: ConnectorService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a connector service and a body over its limit', () => {
  it('answers 413 PAYLOAD_TOO_LARGE to a caller that goes on sending', async () => {
    service = await createConnectorService({
      connector: {
        connector: { kind: 'function', name: 'greet', namespace: 'demo', version: '1.0.0' },
        actions: [{ name: 'hello' }],
      },
      handlers: { hello: () => ({ hi: true }) },
      handleSignals: false,
      logger: pino({ level: 'silent' }),
    });
    const { hostname, port } = new URL(service.url);
    const socket = connect(Number(port), hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.pause(); // the answer waits unread, as in a busy caller
    let error: string | undefined;
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code));
    const chunk = (size: number) => `${size.toString(16)}\r\n${'x'.repeat(size)}\r\n`;
    socket.write(
      'POST /execute HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    socket.write(chunk(1024 * 1024 + 1));
    await sleep(300); // refused and answered by now
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
    expect(error).toBeUndefined();
    expect(text).toMatch(/^HTTP\/1\.1 413/);
    expect(text).toContain('"code":"PAYLOAD_TOO_LARGE"');
  });
});
