import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '@weft/identity';
import { takeTestSchema } from '@weft/store';
import { buildServer, type BuiltServer } from './build.js';
import type { ServerOptions } from './config.js';
import { pluginDefinition } from './test-support/harness.js';

const databaseUrl = process.env['WEFT_TEST_DATABASE_URL'];
const SECRET = "It's a Secret to Everybody";

const hook = {
  name: 'push',
  triggers: [
    {
      type: 'webhook',
      path: '/github',
      method: 'POST',
      auth: { type: 'hmac-sha256', secret_name: 'GH_SECRET', header: 'X-Hub-Signature-256' },
    },
  ],
  steps: [{ name: 'echo', type: 'transform', input: { ref: '{{ trigger.payload.ref }}' } }],
  outputs: { ref: { value: '{{ steps.echo.output.ref }}' } },
};

const seen = { name: 'seen', steps: [{ name: 't', type: 'transform', input: { ok: true } }] };

/** A server on SQLite in a temporary directory, or on a fresh PostgreSQL schema. */
async function open(kind: 'sqlite' | 'postgres') {
  const schema = kind === 'postgres' ? await takeTestSchema(databaseUrl!) : undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-server-triggers-'));
  const options: ServerOptions = {
    dataDir,
    logLevel: 'silent',
    triggers: { secretsEnvironment: { GH_SECRET: SECRET } },
    ...(schema ? { databaseUrl, databaseSchema: schema.name } : {}),
  };
  const server = await buildServer(options, { logger: false });
  return {
    server,
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
])('deployed workflows on the server ($name)', ({ kind, skip }) => {
  let server: BuiltServer;
  let dispose: () => Promise<void>;
  let auth: { authorization: string };

  beforeAll(async () => {
    if (skip) return;
    ({ server, dispose } = await open(kind));
    const key = await createApiKey(server.store, { name: 'acme' }, new Date().toISOString());
    auth = { authorization: `Bearer ${key.key}` };
  });
  afterAll(async () => dispose?.());

  const inject = (method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, body?: unknown) =>
    server.app.inject({
      method,
      url,
      headers: { ...auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });

  it.skipIf(skip)('runs a signed webhook through the runtime to a completed record', async () => {
    expect((await inject('PUT', '/workflows/push', hook)).statusCode).toBe(201);
    const body = JSON.stringify({ ref: 'refs/heads/main' });
    const accepted = await server.app.inject({
      method: 'POST',
      url: '/hooks/github',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
      },
      payload: body,
    });
    expect(accepted.statusCode).toBe(202);
    const pending = accepted.json();
    expect(pending).toMatchObject({ status: 'pending', workflow: 'push', trigger: 'webhook' });
    expect(pending.poll_url).toBe(`/workflows/executions/${pending.execution_id}`);
    let record = pending;
    for (let i = 0; i < 100 && record.status !== 'completed' && record.status !== 'failed'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      record = (await inject('GET', pending.poll_url)).json();
    }
    expect(record).toMatchObject({
      status: 'completed',
      result: { outputs: { ref: 'refs/heads/main' } },
    });
  });

  it.skipIf(skip)(
    'shows a deployment to its owner, and to admin keys naming that owner; 404 to other keys',
    async () => {
      const deployed = await inject('PUT', '/workflows/seen', seen);
      expect(deployed.statusCode, deployed.body).toBe(201);
      const at = new Date().toISOString();
      const other = await createApiKey(server.store, { name: 'other' }, at);
      const admin = await createApiKey(server.store, { name: 'ops', admin: true }, at);
      const as = (key: string, url: string) =>
        server.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });
      const listed = (key: string, query = '') =>
        as(key, `/workflows${query}`).then((r) =>
          r.json().workflows.map((w: { name: string }) => w.name),
        );
      expect(await listed(other.key)).toEqual([]);
      expect((await as(other.key, '/workflows/seen')).json()).toMatchObject({ code: 'NOT_FOUND' });
      // An admin key acts in its own owner unless it names another with ?owner=.
      expect(await listed(admin.key)).not.toContain('seen');
      expect((await as(admin.key, '/workflows/seen')).statusCode).toBe(404);
      const ownerOf = (await inject('GET', '/workflows/seen')).json().owner as string;
      expect(await listed(admin.key, `?owner=${ownerOf}`)).toContain('seen');
      expect((await as(admin.key, `/workflows/seen?owner=${ownerOf}`)).json()).toMatchObject({
        owner: ownerOf,
        deployed_by: 'acme',
      });
      expect((await inject('GET', '/workflows/seen')).statusCode).toBe(200);
    },
  );

  it.skipIf(skip)(
    'keeps GET /workflows/executions for the executions API and reserves the name',
    async () => {
      const list = await inject('GET', '/workflows/executions');
      expect(list.statusCode).toBe(200);
      expect(list.json()).toHaveProperty('executions');
      const reserved = await inject('PUT', '/workflows/executions', {
        ...hook,
        name: 'executions',
      });
      expect(reserved.statusCode).toBe(400);
      expect(reserved.json()).toMatchObject({
        code: 'VALIDATION',
        details: { field: 'name', constraint: 'reserved' },
      });
    },
  );

  it.skipIf(skip)('refuses to unpublish a plugin version a deployed workflow uses', async () => {
    const published = await inject('POST', '/plugins', pluginDefinition('pager'));
    expect(published.statusCode).toBe(201);
    const uses = {
      name: 'pages',
      steps: [{ name: 'p', plugin: 'pager', action: 'send', input: { text: 'hi' } }],
    };
    expect((await inject('PUT', '/workflows/pages', uses)).statusCode).toBe(201);
    const removed = await inject('DELETE', '/plugins/pager/1.0.0');
    expect(removed.statusCode).toBe(409);
    expect(removed.json().details.unmet).toContain('in_use');
  });

  it.skipIf(skip)(
    'counts a bare plugin reference as using the latest version at unpublish time',
    async () => {
      expect((await inject('POST', '/plugins', pluginDefinition('beeper'))).statusCode).toBe(201);
      const uses = {
        name: 'beeps',
        steps: [{ name: 'b', plugin: 'beeper', action: 'send', input: { text: 'hi' } }],
      };
      expect((await inject('PUT', '/workflows/beeps', uses)).statusCode).toBe(201);
      const newer = await inject('PUT', '/plugins/beeper', pluginDefinition('beeper', '1.1.0'));
      expect(newer.statusCode, newer.body).toBeLessThan(300);
      for (const version of ['1.0.0', '1.1.0']) {
        const deprecated = await inject('POST', `/plugins/beeper/${version}/deprecate`, {
          reason: 'retired',
        });
        expect(deprecated.statusCode, deprecated.body).toBe(200);
      }
      // The next run of `beeps` uses 1.1.0, the latest: it is in use, 1.0.0 no longer is.
      const latest = await inject('DELETE', '/plugins/beeper/1.1.0');
      expect(latest.statusCode).toBe(409);
      expect(latest.json().details.unmet).toEqual(['in_use']);
      const older = await inject('DELETE', '/plugins/beeper/1.0.0');
      expect(older.statusCode, older.body).toBe(200);
      expect(older.json()).toMatchObject({ status: 'removed', version: '1.0.0' });
    },
  );
});
