import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createLocalKey } from '@weft/server';
import {
  adminClient,
  DATABASE_URL,
  dropSchema,
  registerCount,
  SKIP_REASON,
  startChild,
  startCountingConnector,
  startExecutions,
  statusCounts,
  stop,
  uniqueName,
  waitUntil,
  type Child,
  type CountingConnector,
} from './support.js';

/**
 * Stand-in for restarting PostgreSQL: the cluster is shared with tests running in parallel, so
 * instead of `pg_ctlcluster ... restart` every connection of the replica is terminated
 * server-side (`pg_terminate_backend`), which is what a restart does to a client.
 */
const SKIP = SKIP_REASON;

describe.skipIf(SKIP)(
  `PostgreSQL connections of a replica terminated mid-run${SKIP ? ` (skipped: ${SKIP})` : ''}`,
  () => {
    const schema = uniqueName('weft_fault');
    let replica: Child | undefined;
    let connector: CountingConnector | undefined;
    let client: pg.Client | undefined;

    afterAll(async () => {
      if (replica) await stop(replica.child, 'SIGKILL');
      await connector?.close();
      await client?.end();
      await dropSchema(schema);
    });

    it('reconnects and completes every execution', async () => {
      const auth = `Bearer ${(await createLocalKey({ databaseUrl: DATABASE_URL, databaseSchema: schema }, { name: 'faults' })).key}`;
      client = await adminClient();
      connector = await startCountingConnector(20);
      replica = await startChild('server-main.ts', [schema], {
        DATABASE_URL: DATABASE_URL!,
        WEFT_BROKER: '',
        PGAPPNAME: schema,
      });
      await registerCount(replica.url, connector.url);
      await startExecutions([replica.url], auth, 60);
      await waitUntil(() => connector!.total() >= 100, 30_000, '100 action calls');
      const { rows } = await client.query<{ terminated: boolean }>(
        'SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE application_name = $1',
        [schema],
      );
      expect(rows.length).toBeGreaterThan(0);
      await waitUntil(
        async () => (await statusCounts(client!, schema))['completed'] === 60,
        30_000,
        'every execution to complete',
      ).catch(async (error: Error) => {
        throw new Error(
          `${error.message}: ${JSON.stringify(await statusCounts(client!, schema))}; replica: ${replica!.output().slice(-3000)}`,
        );
      });
      console.log(
        `fault (e): terminated ${rows.length} connections; ${connector.total()} calls for 300 steps (${connector.extra()} extra)`,
      );
      const health = await fetch(`${replica.url}/healthz`);
      expect(health.status).toBe(200);
    }, 90_000);
  },
);
