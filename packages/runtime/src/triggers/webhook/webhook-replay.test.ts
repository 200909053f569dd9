import { createHmac } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type WebhookTrigger } from '@weft/core';
import { MemoryTriggerStore } from '@weft/store/memory';
import { ManualClock, RecordingStarter, secretsOf, workflowWith } from '../test-support.js';
import { compileWebhook } from './compile-webhook.js';
import type { WebhookAuditEntry } from './refusal.js';
import { webhookRoutes } from './webhook-plugin.js';
import { WebhookTable } from './webhook-table.js';

// Replays of captured requests, over real HTTP on loopback: a signature bound to its timestamp,
// a signature accepted once per window whatever delivery id comes with it, and Standard Webhooks
// endpoints that accept nothing but their own signed form.

const SECRET = 'a-webhook-secret-of-32-bytes-ok!';
const WHSEC = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const NOW = Date.UTC(2026, 5, 1, 12);
const BODY = '{"order":42}';
const hmac = (text: string, key: string | Buffer = SECRET) =>
  createHmac('sha256', key).update(text).digest();
const seconds = (ms: number) => String(Math.floor(ms / 1000));

let app: FastifyInstance;
let base: string;
let starter: RecordingStarter;
let audit: WebhookAuditEntry[];
let clock: ManualClock;

async function serve(trigger: WebhookTrigger, secret = SECRET) {
  const workflow = workflowWith('orders', [trigger]);
  const table = new WebhookTable();
  table.replace(workflow.name, [
    await compileWebhook(workflow, trigger, 0, { secrets: secretsOf({ HOOK: secret }) }),
  ]);
  app = Fastify();
  await app.register(
    webhookRoutes({
      table,
      start: starter.start,
      store: new MemoryTriggerStore(),
      clock,
      audit: (e) => audit.push(e),
    }),
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
}

async function post(headers: Record<string, string>, body = BODY) {
  const response = await fetch(`${base}/hooks/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

const hook = (security: WebhookTrigger['security'], header = 'X-Signature'): WebhookTrigger => ({
  type: 'webhook',
  path: '/orders',
  auth: { type: 'hmac-sha256', secret_name: 'HOOK', header },
  ...(security ? { security } : {}),
});

beforeEach(() => {
  starter = new RecordingStarter();
  audit = [];
  clock = new ManualClock(NOW);
});
afterEach(async () => app?.close());

describe('a signature with timestampHeader covers <timestamp>.<body>', () => {
  const withTimestamp = hook({ timestampHeader: 'X-Timestamp', replayWindow: 300 });

  it('accepts <timestamp>.<body> signed as sha256=<hex>, hex and base64', async () => {
    await serve(withTimestamp);
    const forms = [
      (mac: Buffer) => `sha256=${mac.toString('hex')}`,
      (mac: Buffer) => mac.toString('hex'),
      (mac: Buffer) => mac.toString('base64'),
    ];
    for (const [i, form] of forms.entries()) {
      const ts = seconds(NOW + i * 1000);
      const response = await post({
        'x-timestamp': ts,
        'x-signature': form(hmac(`${ts}.${BODY}`)),
      });
      expect(response.status).toBe(202);
    }
    expect(starter.requests).toHaveLength(3);
  });

  it('refuses a captured body-only hex signature replayed under a fresh timestamp', async () => {
    await serve(withTimestamp);
    const captured = hmac(BODY).toString('hex');
    clock.advance(3_600_000);
    const response = await post({ 'x-timestamp': seconds(clock.ms), 'x-signature': captured });
    expect(response.status).toBe(401);
    expect(response.json).toMatchObject({
      status: 'error',
      code: 'UNAUTHORIZED',
      details: { reason: 'body_only_signature', header: 'x-signature' },
    });
    expect(response.json['message']).toMatch(/<timestamp>\.<body>/);
    expect(starter.requests).toHaveLength(0);
    expect(audit).toMatchObject([{ status: 401, reason: 'body_only_signature' }]);
  });

  it('refuses a captured <timestamp>.<body> signature under another timestamp', async () => {
    await serve(withTimestamp);
    const old = seconds(NOW);
    const captured = `sha256=${hmac(`${old}.${BODY}`).toString('hex')}`;
    clock.advance(600_000);
    const response = await post({ 'x-timestamp': seconds(clock.ms), 'x-signature': captured });
    expect(response.status).toBe(401);
    expect(response.json['details']).toMatchObject({ reason: 'bad_signature' });
    expect(starter.requests).toHaveLength(0);
  });

  it('still accepts a body-only signature on a webhook without timestampHeader', async () => {
    await serve(hook(undefined));
    const response = await post({ 'x-signature': hmac(BODY).toString('hex') });
    expect(response.status).toBe(202);
  });
});

describe('an accepted signature is accepted once per replay window', () => {
  it('answers 409 replayed_delivery to the same signature without a delivery id', async () => {
    await serve(hook({ timestampHeader: 'X-Timestamp' }));
    const ts = seconds(NOW);
    const headers = { 'x-timestamp': ts, 'x-signature': hmac(`${ts}.${BODY}`).toString('hex') };
    expect((await post(headers)).status).toBe(202);
    const again = await post(headers);
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({
      status: 'error',
      code: 'CONFLICT',
      details: { reason: 'replayed_delivery', delivery_id: null, execution_id: 'exec-1' },
    });
    expect(starter.requests).toHaveLength(1);
    expect(audit).toMatchObject([{ status: 409, reason: 'replayed_delivery' }]);
  });

  it('recognises the signature in another form or under a new delivery id', async () => {
    await serve(hook({ timestampHeader: 'X-Timestamp' }));
    const ts = seconds(NOW);
    const mac = hmac(`${ts}.${BODY}`);
    const first = { 'x-timestamp': ts, 'x-signature': mac.toString('hex'), 'x-delivery-id': 'd1' };
    expect((await post(first)).status).toBe(202);
    for (const replay of [
      { ...first, 'x-delivery-id': 'd2' },
      { ...first, 'x-delivery-id': 'd3', 'x-signature': mac.toString('base64') },
      { 'x-timestamp': ts, 'x-signature': `sha256=${mac.toString('hex')}` },
    ]) {
      const response = await post(replay);
      expect(response.status).toBe(409);
      expect(response.json['details']).toMatchObject({ reason: 'replayed_delivery' });
    }
    expect(starter.requests).toHaveLength(1);
    // The refused replays left no trace: delivery d2 is still new when it really comes.
    const next = seconds(NOW + 1000);
    const real = { 'x-timestamp': next, 'x-signature': hmac(`${next}.${BODY}`).toString('hex') };
    expect((await post({ ...real, 'x-delivery-id': 'd2' })).status).toBe(202);
  });

  it('accepts the same signature again once the window has passed', async () => {
    await serve(hook({ replayWindow: 60 }));
    const headers = { 'x-signature': hmac(BODY).toString('hex') };
    expect((await post(headers)).status).toBe(202);
    clock.advance(59_000);
    expect((await post(headers)).status).toBe(409);
    clock.advance(1_000);
    expect((await post(headers)).status).toBe(202);
    expect(starter.requests).toHaveLength(2);
  });

  it('accepts a retry of a signature whose execution could not be started', async () => {
    await serve(hook({ replayWindow: 60 }));
    const headers = { 'x-signature': hmac(BODY).toString('hex') };
    starter.failWith = new Error('store down');
    expect((await post(headers)).status).toBe(500);
    starter.failWith = undefined;
    expect((await post(headers)).status).toBe(202);
  });

  it('keeps no signatures for a webhook without a replay window', async () => {
    await serve(hook(undefined));
    const headers = { 'x-signature': hmac(BODY).toString('hex') };
    expect((await post(headers)).status).toBe(202);
    expect((await post(headers)).status).toBe(202);
  });
});

describe('a whsec_ (Standard Webhooks) endpoint', () => {
  const key = Buffer.from(WHSEC.slice('whsec_'.length), 'base64');
  const standard = hook(undefined, 'webhook-signature');
  const v1 = (id: string, ts: string, body = BODY) =>
    `v1,${hmac(`${id}.${ts}.${body}`, key).toString('base64')}`;

  it('refuses a plain hex HMAC without webhook-id and webhook-timestamp, naming the header', async () => {
    await serve(standard, WHSEC);
    const response = await post({ 'webhook-signature': hmac(BODY, key).toString('hex') });
    expect(response.status).toBe(401);
    expect(response.json).toMatchObject({
      code: 'UNAUTHORIZED',
      details: { reason: 'missing_standard_headers', header: 'webhook-id' },
    });
    expect(response.json['message']).toMatch(/webhook-id header is missing/);
    const noTimestamp = await post({
      'webhook-id': 'msg_1',
      'webhook-signature': v1('msg_1', seconds(NOW)),
    });
    expect(noTimestamp.json['details']).toMatchObject({
      reason: 'missing_standard_headers',
      header: 'webhook-timestamp',
    });
    expect(starter.requests).toHaveLength(0);
  });

  it('refuses any form but v1,<base64>, even with both headers', async () => {
    await serve(standard, WHSEC);
    const ts = seconds(NOW);
    for (const signed of [BODY, `${ts}.${BODY}`, `msg_1.${ts}.${BODY}`]) {
      const response = await post({
        'webhook-id': 'msg_1',
        'webhook-timestamp': ts,
        'webhook-signature': hmac(signed, key).toString('hex'),
      });
      expect(response.status).toBe(401);
      expect(response.json['details']).toMatchObject({ reason: 'standard_signature_required' });
    }
    const ok = await post({
      'webhook-id': 'msg_1',
      'webhook-timestamp': ts,
      'webhook-signature': v1('msg_1', ts),
    });
    expect(ok.status).toBe(202);
  });

  it('checks webhook-timestamp even when timestampHeader names another header', async () => {
    await serve(hook({ timestampHeader: 'X-Timestamp' }, 'webhook-signature'), WHSEC);
    const old = seconds(NOW - 3_600_000);
    const response = await post({
      'x-timestamp': seconds(NOW),
      'webhook-id': 'msg_9',
      'webhook-timestamp': old,
      'webhook-signature': v1('msg_9', old),
    });
    expect(response.status).toBe(401);
    expect(response.json['details']).toMatchObject({
      reason: 'stale_timestamp',
      header: 'webhook-timestamp',
    });
  });
});
