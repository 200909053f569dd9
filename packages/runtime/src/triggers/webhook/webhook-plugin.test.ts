import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type WebhookTrigger } from '@weft/core';
import { MemoryTriggerStore } from '@weft/store/memory';
import {
  ManualClock,
  pendingRecordOf,
  RecordingStarter,
  secretsOf,
  workflowWith,
} from '../test-support.js';
import { compileWebhook } from './compile-webhook.js';
import type { WebhookAuditEntry } from './refusal.js';
import { webhookRoutes } from './webhook-plugin.js';
import { WebhookTable } from './webhook-table.js';

const SECRET = "It's a Secret to Everybody";
const NOW = Date.UTC(2026, 5, 1, 12);
const sign = (body: string, secret = SECRET) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

let app: FastifyInstance;
let starter: RecordingStarter;
let audit: WebhookAuditEntry[];
let clock: ManualClock;
let table: WebhookTable;

async function serve(trigger: WebhookTrigger, trustedProxies: string[] = []) {
  const workflow = workflowWith('github-push', [trigger]);
  const hook = await compileWebhook(workflow, trigger, 0, {
    secrets: secretsOf({ GH: SECRET, TOKEN: 't0ken' }),
  });
  table.replace(workflow.name, [hook]);
  app = Fastify();
  await app.register(
    webhookRoutes({
      table,
      start: starter.start,
      store: new MemoryTriggerStore(),
      clock,
      trustedProxies,
      audit: (e) => audit.push(e),
    }),
  );
  await app.ready();
}

const hmacHook: WebhookTrigger = {
  type: 'webhook',
  path: '/github',
  method: 'POST',
  auth: { type: 'hmac-sha256', secret_name: 'GH', header: 'X-Hub-Signature-256' },
};

/** Posts `body`, signed over `<x-timestamp>.<body>` when an X-Timestamp is sent, else alone. */
function post(body: string, headers: Record<string, string> = {}, remoteAddress?: string) {
  const timestamp = headers['x-timestamp'];
  const signed = timestamp === undefined ? body : `${timestamp}.${body}`;
  return app.inject({
    method: 'POST',
    url: '/hooks/github',
    payload: body,
    headers: {
      'content-type': 'application/json',
      'x-hub-signature-256': sign(signed),
      ...headers,
    },
    ...(remoteAddress ? { remoteAddress } : {}),
  });
}

beforeEach(() => {
  starter = new RecordingStarter();
  audit = [];
  clock = new ManualClock(NOW);
  table = new WebhookTable();
});
afterEach(async () => app?.close());

describe('webhook authentication', () => {
  it('accepts a signed request with 202 and the pending record, body as trigger.payload', async () => {
    await serve(hmacHook);
    const response = await post('{"ref":"main"}');
    expect(response.statusCode).toBe(202);
    expect(response.json()).toEqual(pendingRecordOf('exec-1', 'github-push', 'webhook'));
    expect(response.headers['location']).toBe('/workflows/executions/exec-1');
    expect(starter.requests[0]!.trigger).toEqual({ type: 'webhook', payload: { ref: 'main' } });
    expect(starter.requests[0]!.workflow.name).toBe('github-push');
  });

  it("accepts GitHub's test vector body and signature", async () => {
    await serve(hmacHook);
    const response = await post('Hello, World!', {
      'content-type': 'text/plain',
      'x-hub-signature-256':
        'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    });
    expect(response.statusCode).toBe(202);
    expect(starter.requests[0]!.trigger.payload).toBe('Hello, World!');
  });

  it.each([
    ['one changed byte', '{"ref":"mainX"}', sign('{"ref":"main"}'), 'bad_signature'],
    [
      'a truncated signature',
      '{"ref":"main"}',
      sign('{"ref":"main"}').slice(0, -4),
      'malformed_signature',
    ],
    [
      'a wrong prefix',
      '{"ref":"main"}',
      sign('{"ref":"main"}').replace('sha256=', 'sha1='),
      'malformed_signature',
    ],
    ['the wrong secret', '{"ref":"main"}', sign('{"ref":"main"}', 'nope'), 'bad_signature'],
  ])(
    'refuses %s with 401, audits it and starts nothing',
    async (_name, body, signature, reason) => {
      await serve(hmacHook);
      const response = await post(body, { 'x-hub-signature-256': signature });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({
        status: 'error',
        code: 'UNAUTHORIZED',
        details: { reason },
      });
      expect(starter.requests).toHaveLength(0);
      expect(audit).toMatchObject([
        { event: 'webhook.refused', status: 401, reason, workflow: 'github-push' },
      ]);
    },
  );

  it('refuses a request without the signature header', async () => {
    await serve(hmacHook);
    const response = await app.inject({
      method: 'POST',
      url: '/hooks/github',
      payload: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(401);
    expect(response.json().details.reason).toBe('missing_signature');
  });

  it('checks bearer tokens', async () => {
    await serve({
      type: 'webhook',
      path: '/github',
      auth: { type: 'bearer', secret_name: 'TOKEN' },
    });
    const ok = await app.inject({
      method: 'POST',
      url: '/hooks/github',
      payload: {},
      headers: { authorization: 'Bearer t0ken' },
    });
    expect(ok.statusCode).toBe(202);
    const bad = await app.inject({
      method: 'POST',
      url: '/hooks/github',
      payload: {},
      headers: { authorization: 'Bearer t0ke' },
    });
    expect(bad.statusCode).toBe(401);
    expect(starter.requests).toHaveLength(1);
  });

  it('answers 404 for an unknown path or method', async () => {
    await serve(hmacHook);
    expect((await app.inject({ method: 'POST', url: '/hooks/gitlab' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'PUT', url: '/hooks/github' })).statusCode).toBe(404);
  });
});

describe('webhook replay protection', () => {
  const hook: WebhookTrigger = {
    ...hmacHook,
    security: { timestampHeader: 'X-Timestamp', replayWindow: 300 },
  };

  it('refuses a stale timestamp with 401', async () => {
    await serve(hook);
    const stale = String(NOW / 1000 - 301);
    const response = await post('{}', { 'x-timestamp': stale, 'x-github-delivery': 'd-1' });
    expect(response.statusCode).toBe(401);
    expect(response.json().details).toMatchObject({
      reason: 'stale_timestamp',
      header: 'x-timestamp',
    });
    expect(starter.requests).toHaveLength(0);
    const fresh = await post('{}', {
      'x-timestamp': String(NOW / 1000 - 299),
      'x-github-delivery': 'd-1',
    });
    expect(fresh.statusCode).toBe(202);
  });

  it('defaults the replay window to 300 s when only timestampHeader is set', async () => {
    await serve({ ...hmacHook, security: { timestampHeader: 'X-Timestamp' } });
    const at = (ageS: number) => ({ 'x-timestamp': String(NOW / 1000 - ageS) });
    expect((await post('{}', at(301))).json().details).toMatchObject({
      reason: 'stale_timestamp',
    });
    expect((await post('{}', at(299))).statusCode).toBe(202);
    expect(starter.requests).toHaveLength(1);
  });

  it('refuses a replayed delivery with 409 naming the first execution', async () => {
    await serve(hook);
    const headers = { 'x-timestamp': String(NOW / 1000), 'x-github-delivery': 'd-7' };
    expect((await post('{}', headers)).statusCode).toBe(202);
    const again = await post('{}', headers);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({
      code: 'CONFLICT',
      details: { reason: 'replayed_delivery', delivery_id: 'd-7', execution_id: 'exec-1' },
    });
    expect(starter.requests).toHaveLength(1);
    expect(audit.map((a) => a.reason)).toEqual(['replayed_delivery']);
    clock.advance(301_000);
    const later = await post('{}', { ...headers, 'x-timestamp': String(clock.ms / 1000) });
    expect(later.statusCode).toBe(202);
  });

  it('accepts a retry of a delivery whose execution could not be started', async () => {
    await serve(hook);
    const headers = { 'x-timestamp': String(NOW / 1000), 'x-github-delivery': 'd-8' };
    starter.failWith = new Error('store down');
    expect((await post('{}', headers)).statusCode).toBe(500);
    starter.failWith = undefined;
    expect((await post('{}', headers)).statusCode).toBe(202);
  });

  it('verifies the Standard Webhooks form with its signed timestamp and id', async () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const trigger: WebhookTrigger = {
      type: 'webhook',
      path: '/github',
      auth: { type: 'hmac-sha256', secret_name: 'WH', header: 'webhook-signature' },
    };
    const workflow = workflowWith('std', [trigger]);
    table.replace('std', [
      await compileWebhook(workflow, trigger, 0, { secrets: secretsOf({ WH: secret }) }),
    ]);
    app = Fastify();
    await app.register(
      webhookRoutes({ table, start: starter.start, store: new MemoryTriggerStore(), clock }),
    );
    const body = '{"type":"ping"}';
    const send = (ts: number, id = 'msg_1') => {
      const key = Buffer.from(secret.slice(6), 'base64');
      const sig = createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('base64');
      return app.inject({
        method: 'POST',
        url: '/hooks/github',
        payload: body,
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(ts),
          'webhook-signature': `v1,${sig}`,
        },
      });
    };
    expect((await send(NOW / 1000)).statusCode).toBe(202);
    expect((await send(NOW / 1000)).statusCode).toBe(409);
    expect((await send(NOW / 1000 - 600, 'msg_2')).json().details.reason).toBe('stale_timestamp');
    expect(starter.requests).toHaveLength(1);
  });
});

describe('webhook IP allowlist', () => {
  const hook: WebhookTrigger = {
    ...hmacHook,
    security: { ipAllowlist: ['192.0.2.0/24', '2001:db8::/32'] },
  };

  it('accepts an allowed address, IPv4-mapped too', async () => {
    await serve(hook);
    expect((await post('{}', {}, '192.0.2.10')).statusCode).toBe(202);
    expect((await post('{}', {}, '::ffff:192.0.2.11')).statusCode).toBe(202);
    expect((await post('{}', {}, '2001:db8::1')).statusCode).toBe(202);
  });

  it('refuses an address outside the allowlist even with a forged X-Forwarded-For', async () => {
    await serve(hook);
    const response = await post('{}', { 'x-forwarded-for': '192.0.2.10' }, '203.0.113.5');
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({
      code: 'FORBIDDEN',
      details: { reason: 'ip_not_allowed', client_ip: '203.0.113.5' },
    });
    expect(starter.requests).toHaveLength(0);
    expect(audit[0]).toMatchObject({ status: 403, client_ip: '203.0.113.5' });
  });

  it('believes X-Forwarded-For only from trusted proxies, right to left', async () => {
    await serve(hook, ['10.0.0.1']);
    expect(
      (await post('{}', { 'x-forwarded-for': '203.0.113.5, 192.0.2.10' }, '10.0.0.1')).statusCode,
    ).toBe(202);
    const forged = await post('{}', { 'x-forwarded-for': '192.0.2.10, 203.0.113.5' }, '10.0.0.1');
    expect(forged.statusCode).toBe(403);
    expect(forged.json().details.client_ip).toBe('203.0.113.5');
  });
});

describe('webhook rate limit', () => {
  it('answers 429 with Retry-After past rpm + burst and starts nothing', async () => {
    await serve({ ...hmacHook, security: { rateLimit: { rpm: 60, burst: 2 } } });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await post('{}')).statusCode);
    expect(statuses).toEqual([202, 202, 202, 429]);
    const limited = await post('{}');
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('1');
    expect(limited.json()).toMatchObject({
      code: 'RATE_LIMITED',
      details: { reason: 'rate_limited', retry_after: 1 },
    });
    expect(starter.requests).toHaveLength(3);
    expect(audit.map((e) => `${e.status} ${e.reason}`)).toEqual(Array(2).fill('429 rate_limited'));
    clock.advance(1000);
    expect((await post('{}')).statusCode).toBe(202);
  });

  it('spends no token on a request that fails authentication', async () => {
    await serve({ ...hmacHook, security: { rateLimit: { rpm: 60 } } });
    expect((await post('{}', { 'x-hub-signature-256': 'sha256=00' })).statusCode).toBe(401);
    expect((await post('{}')).statusCode).toBe(202);
  });
});

describe('webhook payload size', () => {
  const hook: WebhookTrigger = { ...hmacHook, security: { maxPayloadSize: 16 } };

  it('accepts a body of exactly maxPayloadSize and refuses one byte more with 413', async () => {
    await serve(hook);
    const exact = '{"a":"12345678"}';
    expect(exact).toHaveLength(16);
    expect((await post(exact)).statusCode).toBe(202);
    const over = '{"a":"123456789"}';
    const response = await post(over);
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { limit: 16 } });
    expect(starter.requests).toHaveLength(1);
    expect(audit[0]).toMatchObject({ status: 413, reason: 'payload_too_large' });
  });

  it('refuses a chunked body over the limit over real HTTP without reading it all', async () => {
    await serve(hook);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/hooks/github',
          headers: {
            'content-type': 'application/json',
            'transfer-encoding': 'chunked',
            'x-hub-signature-256': sign('x'),
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.write('{"a":"1234');
      req.write('56789012345"}');
      // The rest would never be read: the answer comes before the body ends.
      setTimeout(() => req.end(), 200);
    });
    expect(status).toBe(413);
    expect(starter.requests).toHaveLength(0);
    expect(audit).toMatchObject([
      { status: 413, reason: 'payload_too_large', webhook: 'POST /github' },
    ]);
  });
});

describe('webhook deployment errors', () => {
  it('refuses a missing or empty secret', async () => {
    const workflow = workflowWith('w', [hmacHook]);
    await expect(
      compileWebhook(workflow, hmacHook, 0, { secrets: secretsOf({}) }),
    ).rejects.toMatchObject({
      code: 'VALIDATION',
      details: { field: 'triggers[0].auth.secret_name', constraint: 'secret_exists' },
    });
    await expect(
      compileWebhook(workflow, hmacHook, 0, { secrets: secretsOf({ GH: '' }) }),
    ).rejects.toThrow(/empty/);
  });

  it('refuses a blank secret, a whsec_ one too, naming the field', async () => {
    const workflow = workflowWith('w', [hmacHook]);
    for (const blank of [' ', '\t\n  ', 'whsec_   ']) {
      await expect(
        compileWebhook(workflow, hmacHook, 0, { secrets: secretsOf({ GH: blank }) }),
      ).rejects.toMatchObject({
        code: 'VALIDATION',
        details: { field: 'triggers[0].auth.secret_name', constraint: 'secret_exists' },
      });
    }
  });

  it('warns of a secret under 16 bytes, bearer tokens and decoded whsec_ keys too', async () => {
    const bearer: WebhookTrigger = {
      type: 'webhook',
      path: '/b',
      auth: { type: 'bearer', secret_name: 'GH' },
    };
    const compile = (trigger: WebhookTrigger, secret: string) =>
      compileWebhook(workflowWith('w', [trigger]), trigger, 0, {
        secrets: secretsOf({ GH: secret }),
      });
    expect((await compile(hmacHook, 'fifteen-bytes!!')).warnings).toEqual([
      expect.stringContaining('triggers[0].auth.secret_name: the secret "GH"'),
    ]);
    expect((await compile(bearer, 'short')).warnings).toHaveLength(1);
    const shortKey = `whsec_${Buffer.alloc(8, 7).toString('base64')}`;
    expect((await compile(hmacHook, shortKey)).warnings[0]).toMatch(/8 bytes \(decoded\)/);
    expect((await compile(hmacHook, 'sixteen-bytes!!!')).warnings).toEqual([]);
  });
});
