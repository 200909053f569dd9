import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredExecution } from '@weft/core';
import { createApiKey } from '@weft/identity';
import { dropTestSchema, testSchemaName } from '@weft/store';
import type { ServerOptions } from './config.js';
import { startServer, type RunningServer } from './start.js';
import { logTriggeredEnd } from './triggers.js';

const databaseUrl = process.env['WEFT_TEST_DATABASE_URL'];

/** Guarded: finance (or ops) with payments:write may deploy and start it; a lead approves. */
const PAYOUT = {
  name: 'payout',
  authorization: {
    enabled: true,
    roles: ['finance', 'ops'],
    permissions: ['payments:write'],
    approval: { required: true, approvers: ['lead'], timeout: 600 },
  },
  triggers: [
    { type: 'webhook', path: '/payout', auth: { type: 'bearer', secret_name: 'PAYOUT_TOKEN' } },
  ],
  steps: [{ name: 'pay', type: 'transform', input: { paid: '{{ trigger.payload.amount }}' } }],
  outputs: { paid: { value: '{{ steps.pay.output.paid }}' } },
};

const PAYOUT_TOKEN = 'payout-token-of-24-bytes';

/** A webhook signed with the secret `secret`. */
const hooked = (name: string, secret: string) => ({
  name,
  triggers: [
    {
      type: 'webhook',
      path: `/${name}`,
      auth: { type: 'hmac-sha256', secret_name: secret, header: 'X-Signature' },
    },
  ],
  steps: [{ name: 'noop', type: 'transform', input: { ok: true } }],
});

/** Calls a plugin nobody published or registered. */
const HELLO = {
  name: 'hello',
  steps: [{ name: 'count', plugin: 'text-tools', action: 'word_count', input: { text: 'hi' } }],
};

describe.each([
  { name: 'SQLite', kind: 'sqlite' as const, skip: false },
  {
    name: 'PostgreSQL (set WEFT_TEST_DATABASE_URL to run)',
    kind: 'postgres' as const,
    skip: !databaseUrl,
  },
])('deployments and their triggers on $name, over HTTP', ({ kind, skip }) => {
  const schema = testSchemaName();
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-server-deploy-'));
  let server: RunningServer;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    if (skip) return;
    const options: ServerOptions = {
      port: 0,
      dataDir,
      logLevel: 'silent',
      triggers: {
        secretsEnvironment: {
          PAYOUT_TOKEN: PAYOUT_TOKEN,
          BLANK_SECRET: ' \t ',
          SHORT_SECRET: 'short',
        },
      },
      ...(kind === 'postgres' ? { databaseUrl, databaseSchema: schema } : {}),
    };
    server = await startServer(options, { logger: false });
    const at = new Date().toISOString();
    const make = async (name: string, grants: object) =>
      (keys[name] = (await createApiKey(server.store, { name, ...grants }, at)).key);
    await make('clerk', { owner: 'acme', roles: ['finance'], permissions: ['payments:write'] });
    await make('intern', { owner: 'acme', roles: ['finance'] });
    await make('lead', { owner: 'acme', roles: ['lead'] });
    await make('outsider', { owner: 'other', roles: ['dev'] });
    await make('root', { owner: 'ops', admin: true });
  }, 30_000);

  afterAll(async () => {
    if (skip) return;
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (kind === 'postgres') {
      await dropTestSchema(databaseUrl!, schema);
    }
  });

  const call = async (method: string, path: string, key: string | undefined, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : undefined };
  };
  const settled = async (id: string, key: string) => {
    for (let i = 0; i < 500; i++) {
      const { json } = await call('GET', `/workflows/executions/${id}`, key);
      if (!['pending', 'running'].includes(json.status)) return json;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`execution ${id} did not settle`);
  };
  const auditOf = async (action: string) =>
    (await call('GET', '/audit?limit=100', keys['root'])).json.entries.filter(
      (e: { action: string }) => e.action === action,
    );

  it.skipIf(skip)(
    'refuses a deployer without the workflow’s roles or permissions: 403 naming what is missing, nothing deployed, audited',
    async () => {
      const refused = await call('PUT', '/workflows/payout', keys['outsider'], PAYOUT);
      expect(refused.status).toBe(403);
      expect(refused.json).toMatchObject({
        status: 'error',
        code: 'FORBIDDEN',
        details: { missing_roles: ['finance', 'ops'], missing_permissions: ['payments:write'] },
      });
      expect(refused.json.message).toContain('not authorized to deploy workflow "payout"');
      expect(JSON.stringify(refused.json)).not.toContain('dev');
      const partly = await call('PUT', '/workflows/payout', keys['intern'], PAYOUT);
      expect(partly.status).toBe(403);
      expect(partly.json.details).toMatchObject({
        missing_roles: [],
        missing_permissions: ['payments:write'],
      });
      expect((await call('GET', '/workflows/payout', keys['root'])).status).toBe(404);
      expect((await call('POST', '/hooks/payout', undefined, {})).status).toBe(404);
      expect(await auditOf('workflow.deploy')).toMatchObject([
        {
          credential: 'api_key',
          decision: 'deny',
          workflow: 'payout',
          missing: { roles: ['finance', 'ops'], permissions: ['payments:write'] },
        },
        { decision: 'deny', missing: { roles: [], permissions: ['payments:write'] } },
      ]);
    },
  );

  it.skipIf(skip)(
    'deploys for a deployer that passes, records who it was, and its webhook runs act as the deployer and wait for approval',
    async () => {
      const deployed = await call('PUT', '/workflows/payout', keys['clerk'], PAYOUT);
      expect(deployed.status).toBe(201);
      expect(deployed.json).toMatchObject({ status: 'deployed', revision: 1, warnings: [] });
      const [allowed] = (await auditOf('workflow.deploy')).slice(-1);
      expect(allowed).toMatchObject({ decision: 'allow', credential: 'api_key' });
      const detail = await call('GET', '/workflows/payout', keys['clerk']);
      expect(detail.json.deployer).toMatchObject({
        kind: 'api_key',
        owner: 'acme',
        name: 'clerk',
        roles: ['finance'],
        permissions: ['payments:write'],
      });
      expect(detail.json.deployer.key_id).toBe(allowed.subject);

      const hook = await fetch(`${server.url}/hooks/payout`, {
        method: 'POST',
        headers: { authorization: `Bearer ${PAYOUT_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 12 }),
      });
      expect(hook.status).toBe(202);
      const id = ((await hook.json()) as { execution_id: string }).execution_id;
      // Owned by the deployer's owner: the deploying key and the approver's see it.
      const waiting = await settled(id, keys['clerk']!);
      expect(waiting).toMatchObject({
        status: 'waiting',
        waiting_for: { kind: 'approval', approvers: ['lead'] },
      });
      const [started] = (await auditOf('execution.start')).slice(-1);
      expect(started).toMatchObject({
        subject: allowed.subject,
        credential: 'deployment',
        decision: 'allow',
        workflow: 'payout',
      });
      const approvals = await call('GET', '/approvals', keys['lead']);
      expect(
        approvals.json.executions.map((e: { execution_id: string }) => e.execution_id),
      ).toEqual([id]);
      const approved = await call('POST', `/workflows/executions/${id}/approve`, keys['lead'], {});
      expect(approved.status).toBe(200);
      const done = await settled(id, keys['clerk']!);
      expect(done).toMatchObject({ status: 'completed', result: { outputs: { paid: 12 } } });

      // Another owner's key does not see it; an admin key lists every owner's executions.
      expect((await call('GET', `/workflows/executions/${id}`, keys['outsider'])).status).toBe(404);
      const mine = await call('GET', '/workflows/executions', keys['outsider']);
      expect(mine.json.executions).toEqual([]);
      const all = await call('GET', '/workflows/executions?workflow=payout', keys['root']);
      expect(all.json.executions.map((e: { execution_id: string }) => e.execution_id)).toContain(
        id,
      );
      expect((await call('GET', `/workflows/executions/${id}`, keys['root'])).json.status).toBe(
        'completed',
      );
    },
  );

  it.skipIf(skip)(
    'a by-hand run of a guarded deployment checks the caller’s own grants',
    async () => {
      const refused = await call('POST', '/workflows/payout/executions', keys['intern'], {});
      expect(refused.status).toBe(403);
      expect(refused.json.details.missing_permissions).toEqual(['payments:write']);
      const started = await call('POST', '/workflows/payout/executions', keys['clerk'], {});
      expect(started.status).toBe(202);
      expect((await settled(started.json.execution_id, keys['clerk']!)).status).toBe('waiting');
    },
  );

  it.skipIf(skip)(
    'warns of each plugin the server cannot run; strict refuses, a dry run deploys nothing',
    async () => {
      const checked = await call('PUT', '/workflows/hello?dry_run=true', keys['clerk'], HELLO);
      expect(checked.status).toBe(200);
      expect(checked.json.status).toBe('checked');
      expect(checked.json.warnings).toEqual([
        expect.stringContaining('plugin "text-tools" is neither published nor registered'),
      ]);
      const strict = await call('PUT', '/workflows/hello?strict=true', keys['clerk'], HELLO);
      expect(strict.status).toBe(400);
      expect(strict.json).toMatchObject({
        code: 'VALIDATION',
        details: { constraint: 'strict', workflow: 'hello', warnings: checked.json.warnings },
      });
      expect((await call('GET', '/workflows/hello', keys['clerk'])).status).toBe(404);
      const deployed = await call('PUT', '/workflows/hello', keys['clerk'], HELLO);
      expect(deployed.status).toBe(201);
      expect(deployed.json.warnings).toEqual(checked.json.warnings);
    },
  );

  it.skipIf(skip)(
    'refuses a blank webhook secret, storing and serving nothing; warns of a short one',
    async () => {
      const blank = await call(
        'PUT',
        '/workflows/blank',
        keys['clerk'],
        hooked('blank', 'BLANK_SECRET'),
      );
      expect(blank.status).toBe(400);
      expect(blank.json).toMatchObject({
        status: 'error',
        code: 'VALIDATION',
        details: { field: 'triggers[0].auth.secret_name', constraint: 'secret_exists' },
      });
      expect(blank.json.message).toMatch(/BLANK_SECRET.*blank/);
      expect((await call('GET', '/workflows/blank', keys['clerk'])).status).toBe(404);
      expect((await call('POST', '/hooks/blank', undefined, {})).status).toBe(404);
      const short = await call(
        'PUT',
        '/workflows/short',
        keys['clerk'],
        hooked('short', 'SHORT_SECRET'),
      );
      expect(short.status).toBe(201);
      expect(short.json.warnings).toEqual([
        expect.stringMatching(
          /^triggers\[0\]\.auth\.secret_name: the secret "SHORT_SECRET" .* is 5 bytes, under 16/,
        ),
      ]);
      const strict = await call('PUT', '/workflows/short?strict=true', keys['clerk'], {
        ...hooked('short', 'SHORT_SECRET'),
        version: '2.0.0',
      });
      expect(strict.status).toBe(400);
      expect(strict.json.details).toMatchObject({ constraint: 'strict' });
    },
  );
});

describe('the workflows directory (no caller)', () => {
  const GUARDED = `workflows:
  - name: payout
    authorization: { enabled: true, roles: [finance], permissions: ['payments:write'] }
    triggers: [{ type: schedule, cron: '0 3 * * *' }]
    steps:
      - { name: pay, type: transform, input: { ok: true } }
`;
  const directory = (text: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-server-dir-'));
    mkdirSync(join(dir, 'workflows'));
    writeFileSync(join(dir, 'workflows', 'payout.yaml'), text);
    return dir;
  };

  it('refuses to start with a guarded workflow, naming it and what to do instead', async () => {
    const dir = directory(GUARDED);
    try {
      const started = startServer(
        {
          port: 0,
          dataDir: join(dir, 'data'),
          logLevel: 'silent',
          triggers: { workflowsDir: join(dir, 'workflows') },
        },
        { logger: false },
      );
      await expect(started).rejects.toThrow(
        /workflow "payout" in .*payout\.yaml has authorization enabled and is not deployed: .*weft workflow deploy.*WEFT_WORKFLOWS_ROLES/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('deploys it acting as the roles and permissions the operator declared', async () => {
    const dir = directory(GUARDED);
    const server = await startServer(
      {
        port: 0,
        dataDir: join(dir, 'data'),
        logLevel: 'silent',
        triggers: {
          workflowsDir: join(dir, 'workflows'),
          workflowsOwner: 'ops',
          workflowsRoles: ['finance'],
          workflowsPermissions: ['payments:write'],
        },
      },
      { logger: false },
    );
    try {
      const at = new Date().toISOString();
      const key = (await createApiKey(server.store, { name: 'ops' }, at)).key;
      const response = await fetch(`${server.url}/workflows/payout`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { deployer: unknown }).deployer).toEqual({
        kind: 'local',
        subject: 'workflows-directory',
        owner: 'ops',
        key_id: 'local:workflows-directory',
        name: 'workflows-directory',
        roles: ['finance'],
        permissions: ['payments:write'],
      });
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('logs of triggered runs', () => {
  const lines: { level: string; message: string }[] = [];
  const logger = {
    info: (_: object, message: string) => lines.push({ level: 'info', message }),
    warn: (_: object, message: string) => lines.push({ level: 'warn', message }),
    error: (_: object, message: string) => lines.push({ level: 'error', message }),
  };
  const execution = (type: string, status: string, error: object | null = null) =>
    ({
      id: 'e1',
      workflow: 'payout',
      owner: 'acme',
      status,
      trigger: { type },
      error,
    }) as unknown as StoredExecution;

  it('logs the end of each schedule, webhook and event run: failures at warn', () => {
    logTriggeredEnd(logger, execution('schedule', 'completed'));
    logTriggeredEnd(
      logger,
      execution('webhook', 'failed', { code: 'TIMEOUT', message: 'took too long' }),
    );
    logTriggeredEnd(logger, execution('api', 'failed'));
    expect(lines).toEqual([
      { level: 'info', message: 'schedule run of payout completed: e1' },
      { level: 'warn', message: 'webhook run of payout failed: e1 (TIMEOUT: took too long)' },
    ]);
  });
});
