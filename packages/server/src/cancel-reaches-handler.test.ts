import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '@weft/identity';
import { createConnectorService, type ConnectorService } from '@weft/sdk/service';
import { takeTestSchema } from '@weft/store';
import { buildServer } from './build.js';
import type { ServerOptions } from './config.js';

/**
 * `POST /workflows/executions/{id}/cancel` reaches the handler of a connector service, over real
 * HTTP on loopback: runtime → router → connector service. The handler waits on its signal only,
 * so it ends only if the signal fires.
 */
const databaseUrl = process.env['WEFT_TEST_DATABASE_URL'];

const workflow = {
  name: 'waits',
  steps: [{ name: 'hold', plugin: 'holder', action: 'hold', input: { n: 1 } }],
};

/** What the handler saw: when it started, and how its signal ended it. */
interface Seen {
  started: (() => void) | undefined;
  endedNow: (() => void) | undefined;
  reason: unknown;
  ended: boolean;
}

async function open(kind: 'sqlite' | 'postgres') {
  const schema = kind === 'postgres' ? await takeTestSchema(databaseUrl!) : undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-server-cancel-'));
  const options: ServerOptions = {
    dataDir,
    logLevel: 'silent',
    port: 0,
    ...(schema ? { databaseUrl, databaseSchema: schema.name } : {}),
  };
  const server = await buildServer(options, { logger: false });
  const url = await server.app.listen({ port: 0, host: '127.0.0.1' });
  const key = await createApiKey(server.store, { name: 'acme' }, new Date().toISOString());
  return {
    server,
    url,
    auth: { authorization: `Bearer ${key.key}` },
    dispose: async () => {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
      await schema?.release();
    },
  };
}

describe.each([
  { name: 'SQLite', kind: 'sqlite' as const, skip: false },
  {
    name: 'PostgreSQL (set WEFT_TEST_DATABASE_URL to run)',
    kind: 'postgres' as const,
    skip: !databaseUrl,
  },
])('cancel reaches the connector service handler ($name)', ({ kind, skip }) => {
  let opened: Awaited<ReturnType<typeof open>>;
  let service: ConnectorService;
  const seen: Seen = { started: undefined, endedNow: undefined, reason: undefined, ended: false };
  /** Promises of the next handler's start and end. */
  const arm = () => {
    seen.ended = false;
    seen.reason = undefined;
    return {
      started: new Promise<void>((resolve) => (seen.started = resolve)),
      ended: new Promise<void>((resolve) => (seen.endedNow = resolve)),
    };
  };

  beforeAll(async () => {
    if (skip) return;
    opened = await open(kind);
    service = await createConnectorService({
      connector: {
        connector: { kind: 'function', name: 'holder', namespace: 'test', version: '1.0.0' },
        actions: [{ name: 'hold' }],
      },
      handlers: {
        hold: (_input: unknown, context: { signal: AbortSignal }) =>
          new Promise((_, reject) => {
            seen.started?.();
            context.signal.addEventListener('abort', () => {
              seen.reason = context.signal.reason;
              seen.ended = true;
              seen.endedNow?.();
              reject(context.signal.reason as Error);
            });
          }),
      },
      routerUrl: opened.url,
      handleSignals: false,
      reregisterMs: 0,
      logger: pino({ level: 'silent' }),
    });
  });
  afterAll(async () => {
    await service?.close();
    await opened?.dispose();
  });

  const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const response = await fetch(`${opened.url}${path}`, {
      method,
      headers: {
        ...opened.auth,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };
  const inFlight = async () =>
    ((await call('GET', '/routes')).json['instances'] as { in_flight: number }[])[0]!.in_flight;

  it.skipIf(skip)(
    'fires the handler signal, ends the handler and brings in_flight back to 0',
    async () => {
      const { started, ended } = arm();
      const accepted = await call('POST', '/workflows/executions', { workflow, inputs: {} });
      expect(accepted.status).toBe(202);
      const id = accepted.json['execution_id'] as string;
      await started;
      expect(await inFlight()).toBe(1);
      expect(seen.ended).toBe(false);

      const canceled = await call('POST', `/workflows/executions/${id}/cancel`);
      expect(canceled.status).toBe(200);
      await ended;
      expect(seen.reason).toMatchObject({ code: 'CANCELED' });
      // The router drops the call when the runtime abandons it; nothing waits for a timeout.
      for (let i = 0; i < 200 && (await inFlight()) !== 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(await inFlight()).toBe(0);
      const record = (await call('GET', `/workflows/executions/${id}`)).json;
      expect(record).toMatchObject({ status: 'canceled', error: { code: 'CANCELED' } });
    },
  );

  it.skipIf(skip)(
    'cancels a POST /actions/execute whose caller went away (a hybrid run interrupted)',
    async () => {
      const { started, ended } = arm();
      const caller = new AbortController();
      const call = fetch(`${opened.url}/actions/execute`, {
        method: 'POST',
        headers: { ...opened.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ plugin: 'holder', action: 'hold', input: {} }),
        signal: caller.signal,
      }).catch(() => undefined);
      await started;
      expect(await inFlight()).toBe(1);
      caller.abort();
      await call;
      await ended;
      expect(seen.reason).toMatchObject({ code: 'CANCELED' });
      for (let i = 0; i < 200 && (await inFlight()) !== 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(await inFlight()).toBe(0);
    },
  );

  it.skipIf(skip)(
    'refuses the router POST /execute of the public server without a key',
    async () => {
      const refused = await fetch(`${opened.url}/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ action: 'holder.hold', input: {} }),
      });
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ code: 'UNAUTHORIZED' });
      expect(await inFlight()).toBe(0);
    },
  );
});
