import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { checkRegistration } from './registration.js';
import type { Router } from './router.js';
import {
  echoInstance,
  record,
  routerApp,
  startInstance,
  type TestInstance,
} from './test-support/instances.js';

let app: FastifyInstance;
let router: Router;
const instances: TestInstance[] = [];

async function setup(options: Parameters<typeof routerApp>[0] = {}) {
  ({ app, router } = await routerApp(options));
}
async function add(instance: TestInstance, id: string, extra: Record<string, unknown> = {}) {
  instances.push(instance);
  const answer = await router.register(
    record(instance.url, { metadata: { instance_id: id }, ...extra }),
  );
  return answer;
}
/** Records a health check's verdict in the store, as the health checker of some replica does. */
async function health(id: string, verdict: 'ok' | 'degraded' | 'unhealthy') {
  const { store } = router.options;
  await store.claimDue('test', Number.MAX_SAFE_INTEGER, 1, 100);
  await store.recordCheck({
    plugin_slug: 'echo',
    instance_id: id,
    owner: 'test',
    at: new Date().toISOString(),
    health: verdict,
    error: verdict === 'unhealthy' ? 'down' : null,
    next_check_at: Number.MAX_SAFE_INTEGER,
    max_failures: 1000,
  });
  router.table.setHealth('echo', id, verdict);
}
const call = (payload: unknown, url = '/execute', headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url, payload: payload as object, headers });

afterEach(async () => {
  await app.close();
  await router.close();
  for (const i of instances.splice(0)) await i.close();
});

describe('POST /execute', () => {
  it('spreads calls round-robin over ok instances and passes the answer and idempotency key on', async () => {
    await setup();
    await add(await echoInstance('a'), 'a');
    await add(await echoInstance('b'), 'b');
    const by: string[] = [];
    for (let i = 0; i < 4; i++) {
      const answer = await call({ action: 'echo.say', input: { n: i } }, '/execute', {
        'idempotency-key': `run-1/step-${i}`,
      });
      expect(answer.statusCode).toBe(200);
      by.push(answer.json().data.by);
      expect(answer.headers['x-weft-instance-id']).toBe(answer.json().data.by);
    }
    expect(by.sort()).toEqual(['a', 'a', 'b', 'b']);
    const sent = instances.flatMap((i) => i.calls);
    expect(sent.map((c) => c.headers['idempotency-key']).sort()).toEqual([
      'run-1/step-0',
      'run-1/step-1',
      'run-1/step-2',
      'run-1/step-3',
    ]);
    expect(sent[0]!.body).toMatchObject({ action: 'echo.say' });
  });

  it('sends to degraded instances only when no ok one is left', async () => {
    // Health set by hand below lives in the table only: no refresh from the store may undo it.
    await setup({ refreshMs: 3_600_000 });
    await add(await echoInstance('ok'), 'ok');
    await add(await echoInstance('slowish'), 'slowish');
    await health('slowish', 'degraded');
    for (let i = 0; i < 3; i++)
      expect((await call({ action: 'echo.say', input: {} })).json().data.by).toBe('ok');
    await health('ok', 'unhealthy');
    expect((await call({ action: 'echo.say', input: {} })).json().data.by).toBe('slowish');
    expect(router.table.serves('echo', 'say')).toBe(true);
    await health('slowish', 'unhealthy');
    expect(router.table.serves('echo', 'say')).toBe(false);
    const none = await call({ action: 'echo.say', input: {} });
    expect(none.statusCode).toBe(503);
    expect(none.json().message).toMatch(/unhealthy/);
  });

  it('reads the store through on a miss: an instance another replica registered serves at once', async () => {
    await setup({ refreshMs: 3_600_000 });
    const other = await echoInstance('elsewhere');
    instances.push(other);
    // Stored by another replica: this one's copy of the table does not have it.
    const { store, clock } = router.options;
    await store.register(
      await checkRegistration(
        record(other.url, { metadata: { instance_id: 'elsewhere' } }),
        router.options,
        clock.now(),
      ),
    );
    expect(router.table.instancesOf('echo')).toHaveLength(0);
    const answer = await call({ action: 'echo.say', input: {} });
    expect(answer.statusCode).toBe(200);
    expect(answer.json().data.by).toBe('elsewhere');
  });

  it('tries the next instance when the connection is refused', async () => {
    await setup();
    const dead = await echoInstance('dead');
    await add(dead, 'dead');
    await add(await echoInstance('live'), 'live');
    await dead.close();
    for (let i = 0; i < 4; i++) {
      const answer = await call({ action: 'echo.say', input: {} });
      expect(answer.statusCode).toBe(200);
      expect(answer.json().data.by).toBe('live');
    }
  });

  it('answers UNAVAILABLE with backend and suggestion when no instance can serve', async () => {
    await setup();
    const none = await call({ action: 'nobody.say', input: {} });
    expect(none.statusCode).toBe(503);
    expect(none.json()).toMatchObject({
      status: 'error',
      code: 'UNAVAILABLE',
      details: { backend: 'nobody', suggestion: expect.stringMatching(/register/) },
    });
    const dead = await echoInstance('dead');
    await add(dead, 'dead');
    await dead.close();
    const refused = await call({ action: 'echo.say', input: {} });
    expect(refused.json()).toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(/ECONNREFUSED/),
    });
    const other = await call({ action: 'echo.shout', input: {} });
    expect(other.json().message).toMatch(/serves action "shout"/);
  });

  it('refuses an action not of the form <plugin>.<action> with VALIDATION', async () => {
    await setup();
    for (const action of ['say', 'echo.', '.say', 'Echo.say', 'echo.s a y']) {
      const answer = await call({ action, input: {} });
      expect(answer.statusCode).toBe(400);
      expect(answer.json()).toMatchObject({ code: 'VALIDATION', details: { field: 'action' } });
    }
    const missing = await call({ action: 'echo.say' });
    expect(missing.json()).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'input', constraint: 'required' },
    });
    const list = await call({ action: 'echo.say', input: [1] });
    expect(list.json()).toMatchObject({ code: 'VALIDATION', details: { field: 'input' } });
  });

  it('answers TIMEOUT when the instance is slower than the deadline, and does not retry', async () => {
    await setup({ executeTimeoutMs: 5000 });
    const slow = await startInstance((_req, res) => setTimeout(() => res.end('{}'), 1500));
    await add(slow, 'slow');
    await add(await echoInstance('fast'), 'fast');
    let answer = await call({ action: 'echo.say', input: {} }, '/execute', {
      'x-weft-timeout-ms': '200',
    });
    if (answer.statusCode === 200)
      answer = await call({ action: 'echo.say', input: {} }, '/execute', {
        'x-weft-timeout-ms': '200',
      });
    expect(answer.statusCode).toBe(504);
    expect(answer.json()).toMatchObject({ code: 'TIMEOUT', details: { timeout_ms: 200 } });
    expect(answer.json().details.elapsed_ms).toBeGreaterThanOrEqual(190);
    expect(slow.calls).toHaveLength(1);
  });

  it('answers BACKEND_ERROR for a garbage answer without echoing it', async () => {
    await setup();
    const garbage = await startInstance((_req, res) => res.end('<html>secret stack trace</html>'));
    await add(garbage, 'g');
    const answer = await call({ action: 'echo.say', input: {} });
    expect(answer.statusCode).toBe(502);
    expect(answer.json()).toMatchObject({ code: 'BACKEND_ERROR', details: { backend: 'echo' } });
    expect(answer.body).not.toMatch(/secret|html/);
    expect(answer.json().message).toMatch(/not JSON/);
  });

  it('answers BACKEND_ERROR when the instance answers JSON that is not the action-call protocol (docs/protocol.md#action-calls)', async () => {
    await setup();
    const odd = await startInstance((_req, res) => res.end(JSON.stringify({ ok: 'secret' })));
    await add(odd, 'odd');
    const answer = await call({ action: 'echo.say', input: {} });
    expect(answer.statusCode).toBe(502);
    expect(answer.body).not.toMatch(/secret/);
  });

  it('answers BACKEND_ERROR for an answer over maxResponseBytes', async () => {
    await setup({ maxResponseBytes: 1024 });
    const big = await startInstance((_req, res) =>
      res.end(JSON.stringify({ status: 'success', data: { blob: 'x'.repeat(4096) } })),
    );
    await add(big, 'big');
    const answer = await call({ action: 'echo.say', input: {} });
    expect(answer.statusCode).toBe(502);
    expect(answer.json()).toMatchObject({
      code: 'BACKEND_ERROR',
      message: expect.stringMatching(/over the limit of 1024 bytes/),
    });
  });

  it('relays an error (docs/protocol.md#action-calls) with its code and status; an unknown code becomes BACKEND_ERROR', async () => {
    await setup();
    let code = 'VALIDATION';
    const failing = await startInstance((_req, res) => {
      res.statusCode = 400;
      res.end(
        JSON.stringify({
          status: 'error',
          code,
          message: 'text is required',
          details: { field: 'input.text', constraint: 'required' },
        }),
      );
    });
    await add(failing, 'f');
    const answer = await call({ action: 'echo.say', input: {} });
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toEqual({
      status: 'error',
      code: 'VALIDATION',
      message: 'text is required',
      details: { field: 'input.text', constraint: 'required' },
    });
    code = 'WEIRD';
    const weird = await call({ action: 'echo.say', input: {} });
    expect(weird.statusCode).toBe(502);
    expect(weird.json()).toMatchObject({
      code: 'BACKEND_ERROR',
      details: { original_error: 'WEIRD: text is required' },
    });
  });

  it('answers BACKEND_ERROR when the instance drops the connection after the request was sent', async () => {
    await setup();
    const dropping = await startInstance((req) => req.socket.destroy());
    await add(dropping, 'd');
    await add(await echoInstance('fine'), 'fine');
    const results = [
      await call({ action: 'echo.say', input: {} }),
      await call({ action: 'echo.say', input: {} }),
    ];
    const codes = results.map((r) => (r.statusCode === 200 ? 'ok' : r.json().code)).sort();
    expect(codes).toEqual(['BACKEND_ERROR', 'ok']);
    expect(dropping.calls).toHaveLength(1);
  });
});

describe('POST /{plugin_slug}/execute', () => {
  it('takes <action> or <plugin_slug>.<action>, and refuses another plugin', async () => {
    await setup();
    await add(await echoInstance('a'), 'a');
    expect((await call({ action: 'say', input: {} }, '/echo/execute')).json().data.by).toBe('a');
    expect((await call({ action: 'echo.say', input: {} }, '/echo/execute')).statusCode).toBe(200);
    const other = await call({ action: 'slack.say', input: {} }, '/echo/execute');
    expect(other.json()).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'action', constraint: 'plugin' },
    });
  });
});
