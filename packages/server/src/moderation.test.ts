import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '@weft/identity';
import { buildServer, type BuiltServer } from './build.js';
import { serverOptionsFromEnv } from './config.js';
import { moderationDetectorOptions } from '@weft/agents';

/** The moderation endpoint of weft server (WEFT_MODERATION_*), against a loopback /moderations. */
let moderation: Server;
let moderationUrl: string;
const asked: { authorization: string | undefined; body: unknown }[] = [];
const servers: BuiltServer[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  moderation = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += String(chunk)));
    request.on('end', () => {
      asked.push({ authorization: request.headers.authorization, body: JSON.parse(body) });
      const rude = String((JSON.parse(body) as { input: string }).input).includes('idiot');
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'modr-1',
          model: 'omni-moderation-latest',
          results: [
            {
              flagged: rude,
              categories: { harassment: rude },
              category_scores: { harassment: rude ? 0.93 : 0.01 },
            },
          ],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => moderation.listen(0, '127.0.0.1', resolve));
  moderationUrl = `http://127.0.0.1:${(moderation.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  for (const server of servers) await server.close();
  await new Promise<void>((resolve) => moderation.close(() => resolve()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function start(env: Record<string, string>): Promise<{ server: BuiltServer; key: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-server-moderation-'));
  dirs.push(dataDir);
  const fromEnv = serverOptionsFromEnv(env);
  const server = await buildServer(
    { ...fromEnv, dataDir, logLevel: 'silent', egressAllowlist: ['127.0.0.0/8'] },
    { logger: false },
  );
  servers.push(server);
  const key = await createApiKey(server.store, { name: 'acme' }, new Date().toISOString());
  return { server, key: key.key };
}

const workflow = (text: string) => ({
  name: 'polite',
  guardrails: { detectors: { toxicity: 'moderation' } },
  steps: [
    { name: 'answer', type: 'transform', input: { text }, guardrails: { toxicityThreshold: 0.5 } },
  ],
});

describe('the moderation detector on weft server', () => {
  it('reads WEFT_MODERATION_* and refuses settings it cannot use', () => {
    expect(
      serverOptionsFromEnv({
        WEFT_MODERATION_URL: 'https://api.example/v1',
        WEFT_MODERATION_API_KEY_SECRET: 'MOD',
        WEFT_MODERATION_MODEL: 'omni-moderation-latest',
        WEFT_MODERATION_TIMEOUT_MS: '2500',
      }).moderation,
    ).toEqual({
      url: 'https://api.example/v1',
      apiKeySecret: 'MOD',
      model: 'omni-moderation-latest',
      timeoutMs: 2500,
    });
    expect(() => serverOptionsFromEnv({ WEFT_MODERATION_MODEL: 'x' })).toThrow(
      /without WEFT_MODERATION_URL/,
    );
    expect(() =>
      serverOptionsFromEnv({ WEFT_MODERATION_URL: 'http://x', WEFT_MODERATION_TIMEOUT_MS: 'soon' }),
    ).toThrow(/WEFT_MODERATION_TIMEOUT_MS/);
    expect(() => moderationDetectorOptions({ url: 'ftp://x' }, () => undefined)).toThrow(
      /http\(s\) URL/,
    );
    expect(() =>
      moderationDetectorOptions({ url: 'http://x', apiKeySecret: 'MOD' }, () => undefined),
    ).toThrow(/WEFT_SECRET_MOD/);
  });

  it('runs a workflow that chooses it, with the key from WEFT_SECRET_<NAME>', async () => {
    const { server, key } = await start({
      WEFT_MODERATION_URL: moderationUrl,
      WEFT_MODERATION_API_KEY_SECRET: 'MOD_KEY',
      WEFT_MODERATION_MODEL: 'omni-moderation-latest',
      WEFT_SECRET_MOD_KEY: 'sk-mod-1',
    });
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const run = async (text: string) => {
      const answer = await server.app.inject({
        method: 'POST',
        url: '/workflows/executions',
        headers: { ...headers, prefer: 'wait=20' },
        payload: JSON.stringify({ workflow: workflow(text) }),
      });
      expect(answer.statusCode, answer.body).toBe(200);
      return answer.json();
    };
    asked.length = 0;
    expect((await run('have a nice day')).status).toBe('completed');
    const rude = await run('you idiot');
    expect(rude.status).toBe('failed');
    expect(rude.result.steps.answer.error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'guardrails.toxicityThreshold', score: 0.93, found: { harassment: 1 } },
    });
    expect(asked).toEqual([
      {
        authorization: 'Bearer sk-mod-1',
        body: { input: 'text\nhave a nice day', model: 'omni-moderation-latest' },
      },
      {
        authorization: 'Bearer sk-mod-1',
        body: { input: 'text\nyou idiot', model: 'omni-moderation-latest' },
      },
    ]);
    const deployed = await server.app.inject({
      method: 'PUT',
      url: '/workflows/polite',
      headers,
      payload: JSON.stringify(workflow('x')),
    });
    expect(deployed.statusCode, deployed.body).toBeLessThan(300);
  });

  it('refuses at deploy a workflow choosing it when it is not configured', async () => {
    const { server, key } = await start({});
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const deployed = await server.app.inject({
      method: 'PUT',
      url: '/workflows/polite',
      headers,
      payload: JSON.stringify(workflow('x')),
    });
    expect(deployed.statusCode).toBe(400);
    expect(deployed.json(), deployed.body).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'guardrails.detectors.toxicity', constraint: 'unknown_detector' },
    });
  });

  it('fails the step closed, naming the detector, when the endpoint is unreachable', async () => {
    const { server, key } = await start({ WEFT_MODERATION_URL: 'http://127.0.0.1:1/v1' });
    const answer = await server.app.inject({
      method: 'POST',
      url: '/workflows/executions',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        prefer: 'wait=20',
      },
      payload: JSON.stringify({ workflow: workflow('have a nice day') }),
    });
    const record = answer.json();
    expect(record.status).toBe('failed');
    expect(record.result.steps.answer.error).toMatchObject({
      code: 'BACKEND_ERROR',
      message: expect.stringContaining('toxicity detector "moderation"'),
      details: { backend: 'moderation', detector: 'moderation' },
    });
  });
});
