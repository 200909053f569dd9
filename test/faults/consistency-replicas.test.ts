import { afterAll, describe, expect, it } from 'vitest';
import { createLocalKey } from '@weft/server';
import {
  DATABASE_URL,
  dropSchema,
  startChild,
  startCountingConnector,
  stop,
  uniqueName,
  waitUntil,
  type Child,
  type CountingConnector,
} from './support.js';

/**
 * No refusal rests on a replica's stale copy. Two real `weft server` processes on one
 * PostgreSQL schema: an instance registered on A is usable on B as soon as the register call
 * has answered (100 times in a row, each a new plugin B has never seen), and a key revoked on A
 * is refused on B within 1 s.
 */
const SKIP = DATABASE_URL ? undefined : 'needs WEFT_TEST_DATABASE_URL (.ci/run sets it)';
const ROUNDS = 100;

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
  `one truth across replicas on PostgreSQL${SKIP ? ` (skipped: ${SKIP})` : ''}`,
  () => {
    const schema = uniqueName('weft_consistency');
    const children: Child[] = [];
    let connector: CountingConnector | undefined;
    let a: Child;
    let b: Child;
    let admin: string;

    afterAll(async () => {
      for (const child of children) await stop(child.child, 'SIGKILL');
      await connector?.close();
      await dropSchema(schema);
    });

    it('starts on B, at once, a run of a plugin just registered on A (100 times in a row)', async () => {
      const local = { databaseUrl: DATABASE_URL, databaseSchema: schema };
      admin = `Bearer ${(await createLocalKey(local, { name: 'root', owner: 'acme', admin: true })).key}`;
      connector = await startCountingConnector(0);
      const env = { DATABASE_URL: DATABASE_URL!, WEFT_BROKER: '' };
      // One after the other: on a busy machine two starting at once may pass the start timeout.
      a = await startChild('server-main.ts', [schema], { ...env, WEFT_REPLICA_ID: 'a' });
      children.push(a);
      b = await startChild('server-main.ts', [schema], { ...env, WEFT_REPLICA_ID: 'b' });
      children.push(b);
      const ids: string[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const slug = `fresh-${i}`;
        const registered = await fetch(`${a.url}/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            plugin_slug: slug,
            version: '1.0.0',
            url: connector.url,
            actions: ['step'],
            metadata: { instance_id: `${slug}-1` },
          }),
        });
        expect(registered.status).toBe(201);
        const started = await call(b.url, admin, 'POST', '/workflows/executions', {
          workflow: `workflows:\n  - name: run-${i}\n    steps:\n      - { name: s, plugin: ${slug}, action: step, input: { v: ${i} } }\n    outputs: { v: { value: '{{ steps.s.output.v }}' } }\n`,
        });
        expect(started.status, `round ${i}: ${JSON.stringify(started.json)}`).toBe(202);
        ids.push(started.json['execution_id'] as string);
      }
      // And they ran.
      await waitUntil(() => connector!.calls.size >= ROUNDS, 30_000, 'every run to call its step');
      const last = await call(b.url, admin, 'GET', `/workflows/executions/${ids.at(-1)!}`);
      await waitUntil(
        async () =>
          (await call(b.url, admin, 'GET', `/workflows/executions/${ids.at(-1)!}`)).json[
            'status'
          ] === 'completed',
        10_000,
        `the last run to complete (${JSON.stringify(last.json)})`,
      );
      // Every run called its step (a step may run twice: the replicas' 1.5 s leases can lapse on
      // a busy machine, and actions are at-least-once).
      expect(connector.calls.size).toBe(ROUNDS);
    }, 120_000);

    it('refuses on B, within 1 s, a key revoked on A', async () => {
      const created = await call(a.url, admin, 'POST', '/auth/keys', { name: 'ci', owner: 'acme' });
      expect(created.status).toBe(201);
      const key = `Bearer ${created.json['key'] as string}`;
      const id = (created.json['key'] as string).slice(5, 17);
      // Both replicas have it cached.
      expect((await call(a.url, key, 'GET', '/auth/whoami')).status).toBe(200);
      expect((await call(b.url, key, 'GET', '/auth/whoami')).status).toBe(200);
      const revoked = await call(a.url, admin, 'DELETE', `/auth/keys/${id}`);
      const at = performance.now();
      expect(revoked.status, JSON.stringify(revoked.json)).toBe(200);
      expect(revoked.json).toMatchObject({ id, name: 'ci', owner: 'acme' });
      expect((await call(a.url, key, 'GET', '/auth/whoami')).status).toBe(401);
      let refused: { status: number; json: Record<string, unknown> } | undefined;
      while (performance.now() - at < 1000) {
        const answer = await call(b.url, key, 'GET', '/auth/whoami');
        if (answer.status !== 200) {
          refused = answer;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(refused?.status, 'B refused the key within 1 s').toBe(401);
      expect(refused?.json).toMatchObject({ code: 'UNAUTHORIZED', details: { reason: 'revoked' } });
      const unknown = await call(a.url, admin, 'DELETE', '/auth/keys/000000000000');
      expect(unknown.status).toBe(404);
      const notAdmin = await call(a.url, key, 'DELETE', `/auth/keys/${id}`);
      expect(notAdmin.status).toBe(401);
    }, 30_000);
  },
);
