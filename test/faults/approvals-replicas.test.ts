import { afterAll, describe, expect, it } from 'vitest';
import { createLocalKey } from '@weft/server';
import {
  DATABASE_URL,
  dropSchema,
  registerCount,
  startChild,
  startCountingConnector,
  stop,
  uniqueName,
  waitUntil,
  type Child,
  type CountingConnector,
} from './support.js';

/**
 * A waiting run survives SIGKILL of the server and is approved on another replica. Two real `weft server` processes on one PostgreSQL schema (no broker); runs that
 * wait for approval are started on A, A is killed with SIGKILL, and B decides them (approved:
 * it completes, each step called once) or their deadline ends them (TIMEOUT, on B).
 */
const SKIP = DATABASE_URL ? undefined : 'needs WEFT_TEST_DATABASE_URL (.ci/run sets it)';

/** A payout guarded by roles and an approval: two steps of plugin `count` (each adds 1). */
function payout(name: string, timeoutSeconds: number): string {
  return `workflows:
  - name: ${name}
    authorization:
      enabled: true
      roles: [finance]
      permissions: ['payments:write']
      approval: { required: true, approvers: [lead], timeout: ${timeoutSeconds} }
    steps:
      - { name: reserve, plugin: count, action: step, input: { v: 0 } }
      - { name: pay, plugin: count, action: step, input: { v: '{{ steps.reserve.output.v }}' } }
    outputs: { v: { value: '{{ steps.pay.output.v }}' } }
`;
}

interface ExecutionView {
  execution_id: string;
  status: string;
  waiting_for?: { kind: string; expires_at: string | null; requested_by?: { name?: string } };
  result?: { outputs: Record<string, unknown> };
  error?: { code: string; details: Record<string, unknown> };
  finished_at?: string | null;
}

async function call(
  url: string,
  auth: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: auth,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe.skipIf(SKIP)(
  `approvals across replicas on PostgreSQL, the starting one SIGKILLed${SKIP ? ` (skipped: ${SKIP})` : ''}`,
  () => {
    const schema = uniqueName('weft_approvals');
    const children: Child[] = [];
    let connector: CountingConnector | undefined;

    afterAll(async () => {
      for (const child of children) await stop(child.child, 'SIGKILL');
      await connector?.close();
      await dropSchema(schema);
    });

    it('a waiting run survives the kill and runs once when approved on B; a deadline ends another on B', async () => {
      const local = { databaseUrl: DATABASE_URL, databaseSchema: schema };
      const key = async (name: string, grants: { roles: string[]; permissions?: string[] }) =>
        `Bearer ${(await createLocalKey(local, { name, owner: 'acme', ...grants })).key}`;
      const clerk = await key('clerk', { roles: ['finance'], permissions: ['payments:write'] });
      const lead = await key('lead', { roles: ['lead'] });
      connector = await startCountingConnector(0);
      const env = { DATABASE_URL: DATABASE_URL!, WEFT_BROKER: '' };
      const [a, b] = await Promise.all([
        startChild('server-main.ts', [schema], { ...env, WEFT_REPLICA_ID: 'a' }),
        startChild('server-main.ts', [schema], { ...env, WEFT_REPLICA_ID: 'b' }),
      ]);
      children.push(a, b);
      await registerCount(a.url, connector.url);
      // Each replica re-reads the routing table every second.
      await new Promise((resolve) => setTimeout(resolve, 1200));

      const start = async (workflow: string) => {
        const started = await call(a.url, clerk, 'POST', '/workflows/executions', {
          workflow: payout(workflow, workflow === 'payout' ? 600 : 3),
        });
        expect(started.status, JSON.stringify(started.json)).toBe(202);
        return started.json['execution_id'] as string;
      };
      const record = async (on: Child, id: string) =>
        (await call(on.url, clerk, 'GET', `/workflows/executions/${id}`))
          .json as unknown as ExecutionView;
      const approved = await start('payout');
      const expiring = await start('quick-payout');
      await waitUntil(
        async () =>
          (await record(a, approved)).status === 'waiting' &&
          (await record(a, expiring)).status === 'waiting',
        10_000,
        'both runs to wait for approval on A',
      );
      const deadline = Date.parse((await record(a, expiring)).waiting_for!.expires_at!);
      await stop(a.child, 'SIGKILL');
      // Otherwise A could have ended the wait itself, and B would prove nothing.
      expect(Date.now(), 'A was killed before the 3 s deadline').toBeLessThan(deadline);

      const listed = await call(b.url, lead, 'GET', '/approvals');
      const ids = (listed.json['executions'] as ExecutionView[]).map((e) => e.execution_id);
      expect(ids).toContain(approved);
      expect(connector.total()).toBe(0);

      const decided = await call(b.url, lead, 'POST', `/workflows/executions/${approved}/approve`, {
        comment: 'approved on b',
      });
      expect(decided.status, JSON.stringify(decided.json)).toBe(200);
      await waitUntil(
        async () => (await record(b, approved)).status === 'completed',
        30_000,
        'the approved run to complete on B',
      );
      expect((await record(b, approved)).result?.outputs).toEqual({ v: 2 });
      // Each step called once, with the run's idempotency keys.
      expect([...connector.calls.entries()].sort()).toEqual([
        [`${approved}/pay`, 1],
        [`${approved}/reserve`, 1],
      ]);
      const again = await call(b.url, lead, 'POST', `/workflows/executions/${approved}/reject`);
      expect(again.status).toBe(409);

      await waitUntil(
        async () => (await record(b, expiring)).status !== 'waiting',
        15_000,
        'the deadline to end the other run on B',
      );
      const expired = await record(b, expiring);
      expect(expired).toMatchObject({
        status: 'failed',
        error: { code: 'TIMEOUT', details: { timeout_ms: 3000 } },
      });
      expect(Date.parse(expired.finished_at!)).toBeGreaterThanOrEqual(deadline);
      // It never ran: no call carries its id.
      expect(connector.total()).toBe(2);
    }, 90_000);
  },
);
