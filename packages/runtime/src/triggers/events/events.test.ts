import { createSign } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UnauthorizedError, type EventTrigger, keyPrincipal } from '@weft/core';
import { ManualClock, RecordingStarter, workflowWith } from '../test-support.js';
import { EventRouter } from './event-router.js';
import { eventRoutes } from './events-plugin.js';
import { matchesFilter, valueAt } from './filter.js';
import { SnsEventSource } from './sns-source.js';
import { snsStringToSign, type SnsMessage } from './sns-signature.js';

const event = (
  topic: string,
  source: EventTrigger['source'] = 'custom',
  filter?: Record<string, unknown>,
): EventTrigger => ({
  type: 'event',
  source,
  topic,
  ...(filter ? { filter } : {}),
});

describe('event filters', () => {
  const order = { type: 'order.created', detail: { region: 'eu', total: 42, tags: ['a'] } };

  it('keeps events whose dot paths equal the given values', () => {
    expect(valueAt(order, 'detail.region')).toBe('eu');
    expect(matchesFilter(order, { type: 'order.created', 'detail.region': 'eu' })).toBe(true);
    expect(matchesFilter(order, { 'detail.total': 42, 'detail.tags': ['a'] })).toBe(true);
    expect(matchesFilter(order, undefined)).toBe(true);
  });

  it('drops events with a different or missing value, and does not coerce types', () => {
    expect(matchesFilter(order, { 'detail.region': 'us' })).toBe(false);
    expect(matchesFilter(order, { 'detail.total': '42' })).toBe(false);
    expect(matchesFilter(order, { 'detail.missing': null })).toBe(false);
    expect(matchesFilter('text', { type: 'x' })).toBe(false);
    expect(matchesFilter(order, { 'detail.constructor': order.detail.constructor })).toBe(false);
  });
});

describe('event router with custom events', () => {
  it('starts each listening workflow whose filter keeps the event, event as trigger.event', async () => {
    const starter = new RecordingStarter();
    const router = new EventRouter({ start: starter.start });
    await router.register(workflowWith('eu-orders', []), [
      event('orders', 'custom', { region: 'eu' }),
    ]);
    await router.register(workflowWith('all-orders', []), [event('orders')]);
    const started = await router.emit('orders', { region: 'us' });
    expect(started.map((s) => s.workflow)).toEqual(['all-orders']);
    await router.emit('orders', { region: 'eu' });
    expect(starter.requests.map((r) => [r.workflow.name, r.trigger])).toEqual([
      ['all-orders', { type: 'event', event: { region: 'us' } }],
      ['eu-orders', { type: 'event', event: { region: 'eu' } }],
      ['all-orders', { type: 'event', event: { region: 'eu' } }],
    ]);
    await router.unregister('all-orders');
    expect(await router.emit('orders', { region: 'us' })).toEqual([]);
    expect(await router.emit('other', {})).toEqual([]);
  });

  it('refuses a trigger on a source the server has not configured', async () => {
    const router = new EventRouter({ start: new RecordingStarter().start });
    await expect(
      router.register(workflowWith('k', []), [event('t', 'kafka')]),
    ).rejects.toMatchObject({
      code: 'VALIDATION',
      details: { field: 'triggers[0].source', constraint: 'configured' },
    });
  });
});

describe('POST /events/{topic}', () => {
  let app: FastifyInstance;
  let starter: RecordingStarter;
  beforeEach(async () => {
    starter = new RecordingStarter();
    const router = new EventRouter({ start: starter.start });
    await router.register(workflowWith('paid', []), [
      event('payments', 'custom', { status: 'paid' }),
    ]);
    app = Fastify();
    await app.register(
      eventRoutes({
        router,
        authenticate: async (h) => {
          if (h !== 'Bearer good') throw new UnauthorizedError('bad key', { reason: 'invalid' });
          return keyPrincipal({ keyId: 'k1', owner: 'acme' });
        },
        bodyLimit: 64,
      }),
    );
  });
  afterEach(async () => app.close());

  it('answers 202 with the executions started', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/events/payments',
      headers: { authorization: 'Bearer good' },
      payload: { status: 'paid' },
    });
    expect(response.statusCode).toBe(202);
    expect(response.json()).toEqual({
      status: 'accepted',
      topic: 'payments',
      started: [
        { workflow: 'paid', execution_id: 'exec-1', poll_url: '/workflows/executions/exec-1' },
      ],
    });
  });

  it('refuses a missing key (401), bad JSON (400) and a large body (413), starting nothing', async () => {
    expect(
      (await app.inject({ method: 'POST', url: '/events/payments', payload: { status: 'paid' } }))
        .statusCode,
    ).toBe(401);
    const bad = await app.inject({
      method: 'POST',
      url: '/events/payments',
      headers: { authorization: 'Bearer good', 'content-type': 'application/json' },
      payload: '{nope',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({
      status: 'error',
      code: 'VALIDATION',
      details: { field: 'body' },
    });
    const big = await app.inject({
      method: 'POST',
      url: '/events/payments',
      headers: { authorization: 'Bearer good' },
      payload: { status: 'paid', pad: 'x'.repeat(100) },
    });
    expect(big.statusCode).toBe(413);
    expect(starter.requests).toHaveLength(0);
  });
});

describe('SNS subscription endpoint', () => {
  let dir: string;
  let certificate: string;
  let privateKey: string;
  const certUrl = 'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-test.pem';
  const arn = 'arn:aws:sns:eu-west-1:123456789012:orders';
  const clock = new ManualClock(Date.parse('2026-06-01T12:00:00.000Z'));

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'weft-sns-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=sns.amazonaws.com',
      ],
      { stdio: 'ignore' },
    );
    certificate = readFileSync(join(dir, 'cert.pem'), 'utf8');
    privateKey = readFileSync(join(dir, 'key.pem'), 'utf8');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function signed(
    fields: Omit<SnsMessage, 'Signature' | 'SignatureVersion' | 'SigningCertURL'>,
    version: '1' | '2' = '2',
  ) {
    const message = {
      ...fields,
      SignatureVersion: version,
      SigningCertURL: certUrl,
      Signature: '',
    };
    message.Signature = createSign(version === '1' ? 'RSA-SHA1' : 'RSA-SHA256')
      .update(snsStringToSign(message))
      .sign(privateKey, 'base64');
    return message;
  }
  const notification = (message: unknown, extra: Partial<SnsMessage> = {}) =>
    signed({
      Type: 'Notification',
      MessageId: 'm-1',
      TopicArn: arn,
      Message: JSON.stringify(message),
      Timestamp: '2026-06-01T11:59:00.000Z',
      ...extra,
    });

  let app: FastifyInstance;
  let starter: RecordingStarter;
  let confirmed: string[];
  const fetched: string[] = [];
  beforeEach(async () => {
    starter = new RecordingStarter();
    confirmed = [];
    const router = new EventRouter({ start: starter.start, sources: [new SnsEventSource()] });
    await router.register(workflowWith('sns-orders', []), [
      event('orders', 'sns', { kind: 'new' }),
    ]);
    app = Fastify();
    await app.register(
      eventRoutes({
        router,
        clock,
        authenticate: async () => keyPrincipal({ keyId: 'k', owner: 'o' }),
        sns: {
          fetchCertificate: async (url) => {
            fetched.push(url);
            return certificate;
          },
          confirm: async (url) => {
            confirmed.push(url);
          },
        },
      }),
    );
  });
  afterEach(async () => app.close());
  const post = (body: unknown) =>
    app.inject({
      method: 'POST',
      url: '/sns',
      headers: { 'content-type': 'text/plain; charset=UTF-8' },
      payload: JSON.stringify(body),
    });

  it('verifies SignatureVersion 2 and 1 notifications and dispatches the message as the event', async () => {
    expect((await post(notification({ kind: 'new', id: 1 }))).statusCode).toBe(200);
    const v1 = signed(
      {
        Type: 'Notification',
        MessageId: 'm-2',
        TopicArn: arn,
        Subject: 'hello',
        Message: '{"kind":"new","id":2}',
        Timestamp: '2026-06-01T11:59:30.000Z',
      },
      '1',
    );
    expect((await post(v1)).statusCode).toBe(200);
    expect((await post(notification({ kind: 'old' }))).statusCode).toBe(200);
    expect(starter.requests.map((r) => r.trigger.event)).toEqual([
      { kind: 'new', id: 1 },
      { kind: 'new', id: 2 },
    ]);
    expect(fetched.every((u) => u === certUrl)).toBe(true);
  });

  it('confirms a subscription to a topic a workflow listens to', async () => {
    const confirmation = signed({
      Type: 'SubscriptionConfirmation',
      MessageId: 'c-1',
      TopicArn: arn,
      Token: 'tok',
      SubscribeURL: 'https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&Token=tok',
      Message: 'You have chosen to subscribe',
      Timestamp: '2026-06-01T11:59:00.000Z',
    });
    const response = await post(confirmation);
    expect(response.json()).toEqual({ status: 'confirmed' });
    expect(confirmed).toEqual([confirmation.SubscribeURL]);
    const other = signed({ ...confirmation, TopicArn: 'arn:aws:sns:eu-west-1:123456789012:other' });
    expect((await post(other)).statusCode).toBe(403);
    expect(confirmed).toHaveLength(1);
  });

  it('refuses a tampered message, a stale one, a foreign certificate URL and a bad version', async () => {
    const tampered = { ...notification({ kind: 'new' }), Message: '{"kind":"new","evil":true}' };
    expect((await post(tampered)).json()).toMatchObject({
      code: 'UNAUTHORIZED',
      details: { reason: 'bad_signature' },
    });
    const stale = notification({ kind: 'new' }, { Timestamp: '2026-06-01T10:00:00.000Z' });
    expect((await post(stale)).json().details.reason).toBe('stale_message');
    for (const url of [
      'http://sns.eu-west-1.amazonaws.com/x.pem',
      'https://sns.eu-west-1.amazonaws.com.evil.com/x.pem',
      'https://evil.com/sns.eu-west-1.amazonaws.com/x.pem',
    ]) {
      expect(
        (await post({ ...notification({ kind: 'new' }), SigningCertURL: url })).json().details
          .reason,
      ).toBe('untrusted_certificate_url');
    }
    expect(
      (await post({ ...notification({ kind: 'new' }), SignatureVersion: '3' })).statusCode,
    ).toBe(401);
    expect((await post({ hello: 'world' })).statusCode).toBe(400);
    expect(starter.requests).toHaveLength(0);
  });
});
