import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModelServer, type ScriptedReply } from '@weft/agents/testing';
import { createApiKey } from '@weft/identity';
import { openStore } from '@weft/store';
import { buildServer, type BuiltServer } from './build.js';

// Budgets across runs on `weft server`, over real HTTP handling (inject) on real SQLite, with a
// scripted OpenAI-compatible model on loopback. Each call reserves (request bytes + 1000 output
// tokens) x $0.001 = about $1.3 before it goes out.
const DAY = 86_400_000;
let model: ScriptedModelServer;
let reply: (index: number) => ScriptedReply;
let dataDir: string;
let agentsDir: string;
const servers: BuiltServer[] = [];

beforeAll(async () => {
  model = await new ScriptedModelServer((_body, index) => reply(index)).start();
  dataDir = mkdtempSync(join(tmpdir(), 'weft-budgets-'));
  agentsDir = join(dataDir, 'agents');
  mkdirSync(agentsDir);
  writeFileSync(
    join(agentsDir, 'helper.yaml'),
    [
      'agent:',
      '  namespace: acme',
      '  name: helper',
      '  version: 1.0.0',
      '  model: openai-compatible:scripted',
      `  base_url: ${model.url}`,
      '  api_key_secret: MODEL_KEY',
      '  max_output_tokens: 1000',
      '  pricing: { input_per_million: 1000, output_per_million: 1000 }',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(agentsDir, 'streamer.yaml'),
    [
      'agent:',
      '  namespace: acme',
      '  name: streamer',
      '  version: 1.0.0',
      '  backend: langchain',
      '  streaming: true',
      '  model: openai-compatible:scripted',
      `  base_url: ${model.url}`,
      '  api_key_secret: MODEL_KEY',
      '  max_output_tokens: 1000',
      '',
    ].join('\n'),
  );
});

afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  model.requests.length = 0;
});

afterAll(async () => {
  await model.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function serve(options: Record<string, unknown> = {}, dependencies = {}) {
  const server = await buildServer(
    {
      logLevel: 'silent',
      egressAllowlist: ['127.0.0.0/8'],
      agentsDir,
      runtimeSecrets: { MODEL_KEY: 'sk-budgets' },
      ...options,
    },
    { logger: false, ...dependencies },
  );
  servers.push(server);
  return server;
}

async function keyOf(server: BuiltServer, name: string, admin = false): Promise<string> {
  return (await createApiKey(server.store, { name, admin }, new Date().toISOString())).key;
}

const workflow = (budgets: Record<string, unknown>, name = 'triage') => ({
  name,
  budgets,
  steps: [{ name: 'ask', type: 'agent', agent: 'agent:acme/helper@^1', input: { prompt: 'Hi?' } }],
});

async function run(server: BuiltServer, key: string, definition: unknown) {
  const answer = await server.app.inject({
    method: 'POST',
    url: '/workflows/executions',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      prefer: 'wait=30',
    },
    payload: JSON.stringify({ workflow: definition }),
  });
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.json<{
    status: string;
    result: {
      steps: Record<string, { error?: { code: string; details: Record<string, unknown> } }>;
    };
  }>();
}

async function http(server: BuiltServer, key: string, method: string, url: string, body?: unknown) {
  const answer = await server.app.inject({
    method: method as 'GET',
    url,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
  return {
    status: answer.statusCode,
    json: answer.body ? answer.json<Record<string, unknown>>() : {},
  };
}

describe('budgets across runs on weft server (SQLite)', () => {
  it('count across runs, refuse the call that would cross the limit, and start over in the next period', async () => {
    let now = Date.parse('2026-03-04T10:00:00Z');
    reply = () => ({ text: 'ok', usage: { prompt_tokens: 5500, completion_tokens: 100 } });
    const server = await serve({ dataDir: join(dataDir, 'a') }, { budgetClock: () => now });
    const key = await keyOf(server, 'acme');
    const definition = workflow({ maxCost: 6, period: 'day' });
    expect((await run(server, key, definition)).status).toBe('completed');
    expect(model.requests).toHaveLength(1);
    const refused = await run(server, key, definition);
    expect(refused.status).toBe('failed');
    expect(refused.result.steps['ask']!.error).toMatchObject({
      code: 'VALIDATION',
      details: {
        field: 'budgets.maxCost',
        limit: 6,
        spent: 5.6,
        period: 'day',
        period_end: '2026-03-05T00:00:00.000Z',
        scope: 'workflow',
        workflow: 'triage',
        owner: 'acme',
      },
    });
    expect(model.requests).toHaveLength(1); // the refused call never went out
    now += DAY; // the next day: the budget starts over
    expect((await run(server, key, definition)).status).toBe('completed');
    expect(model.requests).toHaveLength(2);
  });

  it('hold a workspace budget an admin sets over HTTP, audited; others may not set or read it', async () => {
    reply = () => ({ text: 'ok', usage: { prompt_tokens: 10, completion_tokens: 5 } });
    const server = await serve({ dataDir: join(dataDir, 'b') });
    const admin = await keyOf(server, 'root', true);
    const acme = await keyOf(server, 'acme');
    const other = await keyOf(server, 'globex');
    const url = '/budgets/workspaces/acme';
    // Hostile input: 403 for a key that is not admin, 400 naming the field, nothing stored.
    expect((await http(server, acme, 'PUT', url, { max_tokens: 100, period: 'day' })).status).toBe(
      403,
    );
    for (const [body, field] of [
      [{ max_cost: -1, period: 'day' }, 'max_cost'],
      [{ max_cost: 0, period: 'day' }, 'max_cost'],
      [{ max_tokens: 1.5, period: 'day' }, 'max_tokens'],
      [{ max_tokens: 10, period: 'year' }, 'period'],
      [{ max_tokens: 10 }, 'period'],
      [{ max_tokens: 10, period: 'day', extra: 1 }, 'extra'],
      [{ period: 'day' }, 'max_cost'],
    ] as const) {
      const refused = await http(server, admin, 'PUT', url, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.json['code']).toBe('VALIDATION');
      expect(JSON.stringify(refused.json['details'])).toContain(field);
    }
    expect(
      (
        await http(server, admin, 'PUT', '/budgets/workspaces/..%2Fx', {
          max_tokens: 10,
          period: 'day',
        })
      ).status,
    ).toBe(400);
    expect((await http(server, admin, 'GET', url)).status).toBe(404);
    // Set by the admin: read by its workspace, not by another one.
    const set = await http(server, admin, 'PUT', url, { max_tokens: 900, period: 'week' });
    expect(set.status, JSON.stringify(set.json)).toBe(200);
    expect(set.json).toMatchObject({
      owner: 'acme',
      max_tokens: 900,
      max_cost: null,
      period: 'week',
    });
    expect((await http(server, acme, 'GET', url)).json).toMatchObject({ max_tokens: 900 });
    expect((await http(server, other, 'GET', url)).status).toBe(404);
    expect((await http(server, other, 'GET', '/budgets?owner=acme')).status).toBe(404);
    expect((await http(server, acme, 'DELETE', url)).status).toBe(403);
    const audit = await http(server, admin, 'GET', '/audit?limit=100');
    expect(JSON.stringify(audit.json)).toContain('budget.set');
    // Enforced on the workspace's runs: one call's reservation (> 900 tokens) does not fit.
    const refused = await run(server, acme, { ...workflow({}), budgets: undefined });
    expect(refused.result.steps['ask']!.error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'budgets.maxTokens', limit: 900, scope: 'workspace', owner: 'acme' },
    });
    expect(model.requests).toHaveLength(0);
    // Another workspace is not held by it.
    expect((await run(server, other, { ...workflow({}), budgets: undefined })).status).toBe(
      'completed',
    );
    const listed = await http(server, acme, 'GET', '/budgets');
    expect(listed.json).toMatchObject({
      owner: 'acme',
      budgets: [
        {
          scope: 'workspace',
          max_tokens: 900,
          spent_tokens: 0,
          reserved_tokens: 0,
          period: 'week',
        },
      ],
    });
    expect((await http(server, admin, 'DELETE', url)).status).toBe(204);
    expect((await run(server, acme, { ...workflow({}), budgets: undefined })).status).toBe(
      'completed',
    );
    const metrics = await server.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(metrics.body).toMatch(/weft_agent_tokens_total\{[^}]*owner="acme"[^}]*\} 10/);
    expect(metrics.body).toMatch(/weft_agent_cost_usd_total\{[^}]*workflow="triage"/);
  });

  it('lists the budgets of deployed workflows with their spend (GET /budgets)', async () => {
    reply = () => ({ text: 'ok', usage: { prompt_tokens: 100, completion_tokens: 20 } });
    const now = Date.parse('2026-03-04T10:00:00Z');
    const server = await serve({ dataDir: join(dataDir, 'c') }, { budgetClock: () => now });
    const key = await keyOf(server, 'acme');
    const definition = workflow({ maxCost: 25, maxTokens: 2_000_000, period: 'month' });
    expect((await http(server, key, 'PUT', '/workflows/triage', definition)).status).toBe(201);
    expect((await run(server, key, definition)).status).toBe('completed');
    const listed = await http(server, key, 'GET', '/budgets');
    expect(listed.json).toEqual({
      owner: 'acme',
      budgets: [
        {
          scope: 'workflow',
          owner: 'acme',
          workflow: 'triage',
          period: 'month',
          period_start: '2026-03-01T00:00:00.000Z',
          period_end: '2026-04-01T00:00:00.000Z',
          max_cost: 25,
          max_tokens: 2_000_000,
          spent_cost_usd: 0.12,
          spent_tokens: 120,
          reserved_cost_usd: 0,
          reserved_tokens: 0,
        },
      ],
    });
  });

  it('count every for_each item and both backends (langchain streaming), and release failed calls', async () => {
    // A call reserves about 1,400 tokens (request bytes + 1000) and uses 1,000: in 3,000 tokens
    // two calls fit, a third one does not (whether the items run one by one or together).
    reply = (index) =>
      index === 0
        ? { status: 500 } // the first call fails: released, nothing counted, retried
        : { text: 'ok', usage: { prompt_tokens: 100, completion_tokens: 900 } };
    for (const agent of ['helper', 'streamer']) {
      const server = await serve({ dataDir: join(dataDir, `e-${agent}`) });
      const key = await keyOf(server, 'acme');
      model.requests.length = 0;
      const definition = {
        name: `items-${agent}`,
        budgets: { maxTokens: 3000, period: 'week' },
        steps: [
          {
            name: 'ask',
            type: 'agent',
            agent: `agent:acme/${agent}@^1`,
            for_each: [1, 2, 3],
            input: { prompt: 'Item {{ item }}?' },
          },
        ],
      };
      const result = await run(server, key, definition);
      expect(result.result.steps['ask']!.error, agent).toMatchObject({
        code: 'VALIDATION',
        details: { field: 'budgets.maxTokens', limit: 3000, spent: 2000, scope: 'workflow' },
      });
      // The failed call, then two answered ones; the third item's call never went out.
      expect(model.requests, agent).toHaveLength(3);
      if (agent === 'streamer') expect(model.requests[1]!.body['stream']).toBe(true);
      const listed = await http(server, key, 'GET', '/budgets');
      expect(listed.json).toMatchObject({ budgets: [] }); // run inline: counted, not deployed
      await server.close();
      servers.splice(servers.indexOf(server), 1);
    }
  });

  it('deny every call when the ledger cannot be reached (fail closed)', async () => {
    reply = () => ({ text: 'ok' });
    const down = await openStore({ kind: 'sqlite', dataDir: ':memory:' });
    await down.executions.close();
    await down.registry.close(); // the ledger's database is gone
    const server = await serve({ dataDir: join(dataDir, 'd') }, { budgetLedger: down.budgets });
    const key = await keyOf(server, 'acme');
    const refused = await run(server, key, workflow({ maxTokens: 1_000_000, period: 'day' }));
    expect(refused.status).toBe('failed');
    expect(refused.result.steps['ask']!.error).toMatchObject({
      code: 'UNAVAILABLE',
      details: { backend: 'budgets' },
    });
    expect(model.requests).toHaveLength(0);
  });
});

const url = process.env['WEFT_TEST_DATABASE_URL'];

describe.skipIf(!url)('budgets across replicas (PostgreSQL; set WEFT_TEST_DATABASE_URL)', () => {
  it('let exactly one of two runs racing for the last dollar on two replicas call the model', async () => {
    const schema = `weft_budgets_${Date.now().toString(36)}`;
    const options = { databaseUrl: url, databaseSchema: schema };
    const one = await serve(options);
    const two = await serve(options);
    const key = await keyOf(one, 'acme');
    // One reservation (~$1.3) fits in $2, two do not. The model holds its answer until the
    // other run has failed: both reservations are made while the first call is in flight.
    let loserFailed!: () => void;
    const ended = new Promise<void>((resolve) => (loserFailed = resolve));
    reply = () => ({
      text: 'ok',
      usage: { prompt_tokens: 10, completion_tokens: 5 },
      waitFor: ended,
    });
    const definition = workflow({ maxCost: 2, period: 'day' });
    const runs = [run(one, key, definition), run(two, key, definition)];
    const first = await Promise.race(runs.map((r, i) => r.then((result) => ({ result, i }))));
    loserFailed();
    const results = await Promise.all(runs);
    expect(first.result.status).toBe('failed');
    expect(first.result.result.steps['ask']!.error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'budgets.maxCost', limit: 2, scope: 'workflow' },
    });
    expect(results.map((r) => r.status).sort()).toEqual(['completed', 'failed']);
    expect(model.requests).toHaveLength(1);
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await client.end();
  }, 60_000);
});
