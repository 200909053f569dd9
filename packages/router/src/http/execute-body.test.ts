import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Router } from '../router.js';
import { record, routerApp, startInstance, type TestInstance } from '../test-support/instances.js';

let app: FastifyInstance;
let router: Router;
let instance: TestInstance;
/** The bodies the instance received, as text. */
const received: string[] = [];

afterEach(async () => {
  await app.close();
  await router.close();
  await instance.close();
  received.length = 0;
});

/** A router (body limit 1 KiB) with one instance that records the raw bodies it gets. */
async function setup() {
  ({ app, router } = await routerApp({ bodyLimit: 1024 }));
  instance = await startInstance((req, res, body) => {
    res.setHeader('content-type', 'application/json');
    if (req.method === 'GET') return res.end(JSON.stringify({ status: 'ok', version: '1.0.0' }));
    received.push(body);
    res.end('{"status":"success","data":{"ok":true}}');
  });
  await router.register(record(instance.url, { metadata: { instance_id: 'a' } }));
}

const post = (payload: string, url = '/execute', contentType = 'application/json') =>
  app.inject({ method: 'POST', url, payload, headers: { 'content-type': contentType } });

describe('POST /execute body', () => {
  it('sends the bytes received on unchanged, and the answer back as the instance wrote it', async () => {
    await setup();
    const body = '{ "action" : "echo.say",\n  "input": {"text": "h\\u00e9", "n": 1.50} }';
    const answer = await post(body);
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toBe('{"status":"success","data":{"ok":true}}');
    expect(received).toEqual([body]);
  });

  it('qualifies a bare action on /{plugin_slug}/execute and sends a qualified one unchanged', async () => {
    await setup();
    expect((await post('{"action":"say","input":{"n":1}}', '/echo/execute')).statusCode).toBe(200);
    expect((await post('{"action":"echo.say","input":{}}', '/echo/execute')).statusCode).toBe(200);
    expect(received).toEqual([
      '{"action":"echo.say","input":{"n":1}}',
      '{"action":"echo.say","input":{}}',
    ]);
  });

  it('sends a runtime block on to the instance, also when it qualifies the action', async () => {
    await setup();
    const runtime = '{"resources":{"memory":"64MB"}}';
    expect((await post(`{"action":"echo.say","input":{},"runtime":${runtime}}`)).statusCode).toBe(
      200,
    );
    expect(
      (await post(`{"action":"say","input":{},"runtime":${runtime}}`, '/echo/execute')).statusCode,
    ).toBe(200);
    expect(received).toEqual([
      `{"action":"echo.say","input":{},"runtime":${runtime}}`,
      `{"action":"echo.say","input":{},"runtime":${runtime}}`,
    ]);
  });

  const refused: [string, string, string, string][] = [
    ['invalid JSON', '{"action": "echo.say", ', 'body', 'syntax'],
    ['an empty body', '', 'body', 'syntax'],
    ['an array', '[1, 2]', 'body', 'type'],
    ['a string', '"echo.say"', 'body', 'type'],
    [
      'an unknown field',
      '{"action":"echo.say","input":{},"extra":1}',
      'extra',
      'additionalProperties',
    ],
    ['no action', '{"input":{}}', 'action', 'required'],
    ['no input', '{"action":"echo.say"}', 'input', 'required'],
    ['an action that is not a string', '{"action":7,"input":{}}', 'action', 'type'],
    ['an empty action', '{"action":"","input":{}}', 'action', 'minLength'],
    [
      'an action over 256 characters',
      `{"action":"echo.${'a'.repeat(260)}","input":{}}`,
      'action',
      'maxLength',
    ],
    ['input that is not an object', '{"action":"echo.say","input":"hi"}', 'input', 'type'],
    ['input that is null', '{"action":"echo.say","input":null}', 'input', 'type'],
    [
      'a runtime that is not an object',
      '{"action":"echo.say","input":{},"runtime":[1]}',
      'runtime',
      'type',
    ],
    [
      'a top-level __proto__ key',
      '{"action":"echo.say","input":{},"__proto__":{"x":1}}',
      '__proto__',
      'additionalProperties',
    ],
  ];
  it.each(refused)(
    'refuses %s with VALIDATION naming the field; nothing is sent',
    async (_what, body, field, constraint) => {
      await setup();
      const answer = await post(body);
      expect(answer.statusCode).toBe(400);
      expect(answer.json()).toMatchObject({
        status: 'error',
        code: 'VALIDATION',
        message: expect.any(String),
        details: { field, constraint },
      });
      expect(received).toEqual([]);
    },
  );

  it('refuses a body over the limit with PAYLOAD_TOO_LARGE, and another media type', async () => {
    await setup();
    const big = await post(`{"action":"echo.say","input":{"t":"${'x'.repeat(2000)}"}}`);
    expect(big.statusCode).toBe(413);
    expect(big.json()).toMatchObject({ status: 'error', code: 'PAYLOAD_TOO_LARGE' });
    const text = await post('{"action":"echo.say","input":{}}', '/execute', 'text/plain');
    expect(text.statusCode).toBe(400);
    expect(text.json()).toMatchObject({ code: 'VALIDATION', details: { field: 'content-type' } });
    expect(received).toEqual([]);
  });
});
