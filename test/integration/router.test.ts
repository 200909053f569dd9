import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Weft } from '@weft/sdk';
import { call, root, startInventory, startServer, waitFor, weftCommand } from './router-support.js';

const INTERVAL = 400;
const TIMEOUT = 300;
const FAILURES = 2;
const work = mkdtempSync(join(tmpdir(), 'weft-router-'));
const workflowFile = join(root, 'examples/connector-service/workflow.yaml');

let server: Awaited<ReturnType<typeof startServer>>;
/** An API key of the server: the router's POST /execute takes the public API's keys. */
let key: string;
let auth: { headers: Record<string, string> };
const services = new Map<string, Awaited<ReturnType<typeof startInventory>>>();

const routes = async () =>
  (await call('GET', `${server.url}/routes`)).json['instances'] as Record<string, unknown>[];
const ids = async () => (await routes()).map((i) => i['instance_id']).sort();

/** `count` check_stock calls through the router; the instance that served each. */
async function spread(count: number): Promise<string[]> {
  const by: string[] = [];
  for (let i = 0; i < count; i++) {
    const answer = await call(
      'POST',
      `${server.url}/execute`,
      { action: 'inventory.check_stock', input: { skus: ['WIDGET-1'] } },
      auth,
    );
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    expect(answer.json).toMatchObject({
      status: 'success',
      data: { items: [{ sku: 'WIDGET-1', known: true }] },
    });
    by.push(String(answer.headers['x-weft-instance-id']));
  }
  return by;
}

beforeAll(async () => {
  server = await startServer(['--data-dir', join(work, 'data')], {
    WEFT_HEALTH_INTERVAL_MS: String(INTERVAL),
    WEFT_HEALTH_TIMEOUT_MS: String(TIMEOUT),
    WEFT_HEALTH_FAILURES: String(FAILURES),
  });
  const { stdout } = await promisify(execFile)(weftCommand, [
    'auth',
    'create-key',
    '--name',
    'router-test',
    '--data-dir',
    join(work, 'data'),
  ]);
  key = stdout.trim();
  auth = { headers: { authorization: `Bearer ${key}` } };
  const [a, b] = await Promise.all([
    startInventory(server.url, 'inv-a'),
    startInventory(server.url, 'inv-b'),
  ]);
  services.set('inv-a', a);
  services.set('inv-b', b);
}, 60_000);

afterAll(async () => {
  for (const service of services.values()) await service.stop('SIGKILL');
  await server?.stop('SIGKILL');
});

describe('router with two connector service instances, over loopback', () => {
  it('lists both instances and spreads calls over both', async () => {
    expect(await ids()).toEqual(['inv-a', 'inv-b']);
    const by = await spread(10);
    expect(by.filter((b) => b === 'inv-a').length).toBe(5);
    expect(by.filter((b) => b === 'inv-b').length).toBe(5);
    await waitFor(
      async () => (await routes()).every((i) => i['health'] === 'ok'),
      5000,
      'first health checks',
    );
  });

  it('runs a workflow in self_hosted mode through the router only, idempotently per step', async () => {
    const weft = new Weft({
      executionMode: 'self_hosted',
      routerUrl: server.url,
      apiKey: key,
      logLevel: 'silent',
    });
    // A local handler is never used in self_hosted mode: every action goes to the router.
    weft.registerHandler('inventory.check_stock', () => ({ items: [{ available: -1 }] }));
    await weft.loadWorkflows(workflowFile);
    const inputs = { order_id: 'A-1', sku: 'GADGET-7', quantity: 2 };
    const first = await weft.execute('reserve-order', inputs, { executionId: 'exec-1' });
    expect(first.status, JSON.stringify(first)).toBe('completed');
    expect(first.outputs).toMatchObject({ available_before: 8, remaining: 6 });
    // The same execution id and step path: the service sees the same Idempotency-Key and
    // reserves once, whichever instance the router picks.
    const replay = await weft.execute('reserve-order', inputs, { executionId: 'exec-1' });
    expect(replay.outputs).toMatchObject({ reservation: first.outputs['reservation'] });
    const fresh = await weft.execute(
      'reserve-order',
      { ...inputs, quantity: 10 },
      { executionId: 'exec-2' },
    );
    expect(fresh.status).toBe('failed');
    expect(fresh.steps['reserve']?.error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'input.quantity' },
    });
    await weft.close();
  }, 30_000);

  it('runs a workflow with weft workflow run --router', async () => {
    const { stdout } = await promisify(execFile)(
      weftCommand,
      [
        'workflow',
        'run',
        workflowFile,
        '--router',
        server.url,
        '-i',
        'order_id=B-1',
        '-i',
        'sku=WIDGET-1',
        '-o',
        'json',
      ],
      { cwd: work, env: { ...process.env, WORKFLOW_REGISTRY_API_KEY: key } },
    );
    expect(JSON.parse(stdout)).toMatchObject({
      status: 'completed',
      outputs: { available_before: expect.any(Number) },
    });
  }, 30_000);

  it('moves calls to the other instance when one is SIGKILLed, and drops it within interval × N + timeout', async () => {
    await services.get('inv-a')!.stop('SIGKILL');
    const killed = Date.now();
    const by = await spread(6);
    expect(new Set(by)).toEqual(new Set(['inv-b']));
    await waitFor(async () => !(await ids()).includes('inv-a'), 10_000, 'inv-a to leave the table');
    const took = Date.now() - killed;
    // Checks start every INTERVAL; a refused connection fails at once, a hung one after TIMEOUT.
    // 250 ms cover the checker's tick and process scheduling on a busy machine.
    expect(took).toBeLessThanOrEqual(INTERVAL * FAILURES + TIMEOUT + 250);
    expect(await ids()).toEqual(['inv-b']);
    expect(new Set(await spread(4))).toEqual(new Set(['inv-b']));
  });

  it('serves from a restarted instance again', async () => {
    services.set('inv-a', await startInventory(server.url, 'inv-a'));
    expect(await ids()).toEqual(['inv-a', 'inv-b']);
    const by = await spread(6);
    expect(new Set(by)).toEqual(new Set(['inv-a', 'inv-b']));
  }, 30_000);

  it('sends no traffic to an instance that deregistered (SIGTERM)', async () => {
    await services.get('inv-b')!.stop('SIGTERM');
    expect(services.get('inv-b')!.output()).toMatch(/"deregistered":true/);
    expect(await ids()).toEqual(['inv-a']);
    expect(new Set(await spread(6))).toEqual(new Set(['inv-a']));
    const gone = await call('DELETE', `${server.url}/register/inventory/inv-b`);
    expect(gone.status).toBe(404);
  });

  it('refuses POST /execute without an API key', async () => {
    const refused = await call('POST', `${server.url}/execute`, {
      action: 'inventory.check_stock',
      input: { skus: ['WIDGET-1'] },
    });
    expect(refused.status).toBe(401);
    expect(refused.json).toMatchObject({ code: 'UNAUTHORIZED', details: { scheme: 'bearer' } });
  });

  it('answers UNAVAILABLE for a plugin no instance serves, VALIDATION for a bad action', async () => {
    const none = await call(
      'POST',
      `${server.url}/execute`,
      { action: 'payments.charge', input: {} },
      auth,
    );
    expect(none.status).toBe(503);
    expect(none.json).toMatchObject({ code: 'UNAVAILABLE', details: { backend: 'payments' } });
    const bad = await call('POST', `${server.url}/execute`, { action: 'charge', input: {} }, auth);
    expect(bad.json).toMatchObject({ code: 'VALIDATION', details: { field: 'action' } });
  });

  it('refuses every kind of bad registration with VALIDATION naming the field, table unchanged', async () => {
    const before = await routes();
    const good = {
      plugin_slug: 'inventory',
      version: '1.0.0',
      url: 'http://127.0.0.1:9',
      actions: ['reserve'],
    };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...good, plugin_slug: undefined }, 'plugin_slug'],
      [{ ...good, plugin_slug: 'Bad Slug' }, 'plugin_slug'],
      [{ ...good, version: 'latest' }, 'version'],
      [{ ...good, url: 'not a url' }, 'url'],
      [{ ...good, url: 'file:///etc/passwd' }, 'url'],
      [{ ...good, url: 'http://169.254.169.254/' }, 'url'],
      [{ ...good, url: 'http://[fd00:ec2::254]/' }, 'url'],
      [{ ...good, actions: [] }, 'actions'],
      [{ ...good, actions: undefined }, 'actions'],
      [{ ...good, health_check_url: 'http://169.254.169.254/healthz' }, 'health_check_url'],
      [{ ...good, metadata: { instance_id: '../../etc' } }, 'metadata.instance_id'],
      [{ ...good, metadata: { region: 7 } }, 'metadata.region'],
      [{ ...good, owner: 'me' }, 'owner'],
    ];
    for (const [body, field] of cases) {
      const answer = await call('POST', `${server.url}/register`, JSON.parse(JSON.stringify(body)));
      expect(answer.status, field).toBe(400);
      expect(answer.json, field).toMatchObject({
        status: 'error',
        code: 'VALIDATION',
        details: { field },
      });
    }
    expect(await routes()).toEqual(before.map((i) => ({ ...i, last_check_at: expect.anything() })));
  });
});

describe('WEFT_ROUTER_OPEN_EXECUTE', () => {
  it('opens POST /execute without a credential, and the server warns about it at start', async () => {
    const open = await startServer(['--data-dir', join(work, 'open')], {
      WEFT_ROUTER_OPEN_EXECUTE: 'true',
    });
    try {
      const answer = await call('POST', `${open.url}/execute`, {
        action: 'inventory.check_stock',
        input: { skus: ['WIDGET-1'] },
      });
      // No credential, yet not refused: no instance serves it on this server.
      expect(answer.status).toBe(503);
      expect(answer.json).toMatchObject({ code: 'UNAVAILABLE' });
      expect(open.output()).toMatch(
        /WEFT_ROUTER_OPEN_EXECUTE: the router runs any registered action/,
      );
    } finally {
      await open.stop('SIGKILL');
    }
  }, 60_000);
});
