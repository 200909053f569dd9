import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiKey } from '@weft/identity';
import { dropTestSchema, testSchemaName } from '@weft/store';
import { buildServer, type BuiltServer } from './build.js';
import { bearer } from './test-support/harness.js';

const url = process.env['WEFT_TEST_DATABASE_URL'];

/** A TCP relay to PostgreSQL that the test can take away, as a database that goes down. */
class Relay {
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;
  port = 0;

  constructor(target: URL) {
    this.server = createServer((client) => {
      const upstream = connect(Number(target.port || 5432), target.hostname);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('error', () => socket.destroy());
        socket.on('close', () => this.sockets.delete(socket));
      }
      client.pipe(upstream).pipe(client);
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  /** Stops listening and cuts every open connection. */
  async stop(): Promise<void> {
    const closed = new Promise((resolve) => this.server.close(resolve));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }
}

describe.skipIf(!url)('a database outage over HTTP (set WEFT_TEST_DATABASE_URL to run)', () => {
  const schema = testSchemaName();
  let server: BuiltServer | undefined;

  afterEach(async () => {
    await server?.close();
    await dropTestSchema(url!, schema);
  });

  it('answers 503 UNAVAILABLE with Retry-After, never the driver message or address', async () => {
    const relay = await new Relay(new URL(url!)).start();
    const through = new URL(url!);
    through.host = `127.0.0.1:${relay.port}`;
    server = await buildServer(
      { databaseUrl: through.toString(), databaseSchema: schema, logLevel: 'silent' },
      { logger: false },
    );
    const key = (await createApiKey(server.store, { name: 'acme' }, new Date().toISOString())).key;
    const start = () =>
      server!.app.inject({
        method: 'POST',
        url: '/workflows/executions',
        headers: bearer(key),
        payload: {
          workflow: { name: 'w', steps: [{ name: 'a', type: 'transform', input: { ok: true } }] },
        },
      });
    const before = await start();
    expect(before.statusCode, before.body).toBeLessThan(300);

    await relay.stop();
    for (const answer of [
      await start(),
      await server.app.inject({
        method: 'GET',
        url: '/plugins/search?q=mail',
        headers: bearer(key),
      }),
    ]) {
      expect(answer.statusCode, answer.body).toBe(503);
      expect(answer.headers['retry-after']).toBe('5');
      const body = answer.json<{ code: string; message: string; details: object }>();
      expect(body).toMatchObject({
        status: 'error',
        code: 'UNAVAILABLE',
        details: { backend: 'database' },
      });
      expect(answer.body).not.toContain(String(relay.port));
      expect(answer.body).not.toMatch(/ECONN|127\.0\.0\.1|terminated/);
    }
  });
});
