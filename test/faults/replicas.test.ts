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

/** The executions a replica runs, read from its `GET /metrics` (an admin key's `auth`). */
async function inFlight(replica: Child, auth: string): Promise<number> {
  const response = await fetch(`${replica.url}/metrics`, { headers: { authorization: auth } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /metrics: ${response.status} ${text}`);
  const match = /^weft_executions_in_flight\{replica="[^"]*"\} (\d+)$/m.exec(text);
  if (!match) throw new Error(`no weft_executions_in_flight in ${text}`);
  return Number(match[1]);
}

describe.skipIf(SKIP_REASON)(
  `two replicas on one PostgreSQL, one SIGKILLed mid-run${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ''}`,
  () => {
    const schema = uniqueName('weft_fault');
    const children: Child[] = [];
    let connector: CountingConnector | undefined;
    let client: pg.Client | undefined;

    afterAll(async () => {
      for (const child of children) await stop(child.child, 'SIGKILL');
      await connector?.close();
      await client?.end();
      await dropSchema(schema);
    });

    it('completes all 200 executions of a 5-step workflow; extra calls ≤ steps in flight at the kill', async () => {
      const local = { databaseUrl: DATABASE_URL, databaseSchema: schema };
      const auth = `Bearer ${(await createLocalKey(local, { name: 'faults' })).key}`;
      const metricsAuth = `Bearer ${(await createLocalKey(local, { name: 'scraper', admin: true })).key}`;
      client = await adminClient();
      connector = await startCountingConnector(10);
      const env = { DATABASE_URL: DATABASE_URL!, WEFT_BROKER: '' };
      const [a, b] = await Promise.all([
        startChild('server-main.ts', [schema], { ...env, WEFT_REPLICA_ID: 'a' }),
        startChild('server-main.ts', [schema], { ...env, WEFT_REPLICA_ID: 'b' }),
      ]);
      children.push(a, b);
      await registerCount(a.url, connector.url);
      // Each replica re-reads the routing table every second.
      await new Promise((resolve) => setTimeout(resolve, 1200));

      await startExecutions([a.url, b.url], auth, 200);
      await waitUntil(() => connector!.total() >= 300, 30_000, '300 action calls');
      const callsBefore = connector.total();
      const heldByA = await inFlight(a, metricsAuth);
      await stop(a.child, 'SIGKILL');
      // Steps A may have had in flight: one per execution it held, plus calls begun since the read.
      const bound = heldByA + (connector.total() - callsBefore);

      await waitUntil(
        async () => (await statusCounts(client!, schema))['completed'] === 200,
        60_000,
        'every execution to complete on replica b',
      );
      const { rows } = await client.query<{ result: string }>(
        `SELECT result FROM ${schema}.executions`,
      );
      const outputs = rows.map((r) => (JSON.parse(r.result) as { outputs: { v: number } }).outputs);
      expect(outputs).toEqual(Array(200).fill({ v: 5 }));
      expect(connector.calls.size).toBe(1000);
      const extra = connector.extra();
      console.log(
        `fault (a): ${connector.total()} action calls for 1000 steps: ${extra} extra; replica a held ${heldByA} executions at the kill (bound ${bound})`,
      );
      expect(extra).toBeLessThanOrEqual(bound);
    }, 90_000);
  },
);
