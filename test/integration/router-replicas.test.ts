import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnectorService, type ConnectorService } from '@weft/sdk/service';
import { buildServer, type BuiltServer } from '@weft/server';
import { dropTestSchema, testSchemaName } from '@weft/store';
import { call, waitFor } from './router-support.js';

const databaseUrl = process.env['WEFT_TEST_DATABASE_URL'];
const schema = testSchemaName();
const INTERVAL = 300;
/** The router token: registration, the table and POST /execute take it. */
const TOKEN = 'router-replicas-test-token';
const auth = { headers: { authorization: `Bearer ${TOKEN}` } };

describe.skipIf(!databaseUrl)(
  'two router replicas on one PostgreSQL (set WEFT_TEST_DATABASE_URL to run)',
  () => {
    const replicas: { server: BuiltServer; url: string }[] = [];
    let service: ConnectorService;
    let checks = 0;

    beforeAll(async () => {
      for (let i = 0; i < 2; i++) {
        const server = await buildServer(
          {
            databaseUrl,
            databaseSchema: schema,
            healthIntervalMs: INTERVAL,
            logLevel: 'error',
            routerToken: TOKEN,
          },
          { logger: false },
        );
        await server.app.listen({ host: '127.0.0.1', port: 0 });
        const address = server.app.server.address();
        const port = typeof address === 'object' && address ? address.port : 0;
        replicas.push({ server, url: `http://127.0.0.1:${port}` });
      }
      service = await createConnectorService({
        connector: {
          connector: { kind: 'function', name: 'echo', namespace: 'test', version: '1.0.0' },
          actions: [{ name: 'say' }],
        },
        handlers: { say: (input: Record<string, unknown>) => ({ said: input }) },
        routerUrl: replicas[0]!.url,
        routerToken: TOKEN,
        instanceId: 'echo-1',
        healthChecks: { counted: () => (checks++, true) },
        handleSignals: false,
        logger: pino({ level: 'silent' }),
      });
    }, 30_000);

    afterAll(async () => {
      await service?.close();
      for (const { server } of replicas) await server.close();
      await dropTestSchema(databaseUrl!, schema);
    });

    it('routes on the other replica an instance registered with the first', async () => {
      const other = replicas[1]!.url;
      await waitFor(
        async () =>
          (await call('POST', `${other}/execute`, { action: 'echo.say', input: {} }, auth))
            .status === 200,
        3000,
        'the second replica to see the instance',
      );
      const answer = await call(
        'POST',
        `${other}/execute`,
        { action: 'echo.say', input: { n: 1 } },
        auth,
      );
      expect(answer.json).toEqual({ status: 'success', data: { said: { n: 1 } } });
    });

    it('lets one replica at a time check an instance', async () => {
      const before = checks;
      const started = Date.now();
      await new Promise((r) => setTimeout(r, INTERVAL * 6));
      const elapsed = Date.now() - started;
      // Two replicas each checking on their own would make about twice as many checks.
      expect(checks - before).toBeLessThanOrEqual(Math.ceil(elapsed / INTERVAL) + 1);
      expect(checks - before).toBeGreaterThanOrEqual(3);
    });

    it('stops routing on every replica once the instance deregisters from one', async () => {
      const gone = await call(
        'DELETE',
        `${replicas[1]!.url}/register/echo/echo-1`,
        undefined,
        auth,
      );
      expect(gone.status).toBe(200);
      await waitFor(
        async () =>
          (
            await call(
              'POST',
              `${replicas[0]!.url}/execute`,
              { action: 'echo.say', input: {} },
              auth,
            )
          ).status === 503,
        3000,
        'the first replica to drop the instance',
      );
    });
  },
);
