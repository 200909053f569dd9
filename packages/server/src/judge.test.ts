import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModelServer } from '@weft/agents/testing';
import { createApiKey } from '@weft/identity';
import { buildServer, type BuiltServer } from './build.js';
import { serverOptionsFromEnv } from './config.js';
import { judgeDetectorOptions } from '@weft/agents';

/** The judge detector of weft server (WEFT_JUDGE_*), against the scripted model server. */
const model = new ScriptedModelServer((body) => {
  const user = JSON.stringify(body['messages']);
  const rude = user.includes('idiot');
  return { text: JSON.stringify({ toxicity: rude ? 0.97 : 0.02, pii: [], topics: [] }) };
});
const servers: BuiltServer[] = [];
const dirs: string[] = [];

beforeAll(() => model.start());

afterAll(async () => {
  for (const server of servers) await server.close();
  await model.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function start(env: Record<string, string>): Promise<{ server: BuiltServer; key: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-server-judge-'));
  dirs.push(dataDir);
  const server = await buildServer(
    { ...serverOptionsFromEnv(env), dataDir, logLevel: 'silent', egressAllowlist: ['127.0.0.0/8'] },
    { logger: false },
  );
  servers.push(server);
  const key = await createApiKey(server.store, { name: 'acme' }, new Date().toISOString());
  return { server, key: key.key };
}

const workflow = (text: string) => ({
  name: 'polite',
  guardrails: { detectors: { toxicity: 'judge' } },
  steps: [
    { name: 'answer', type: 'transform', input: { text }, guardrails: { toxicityThreshold: 0.5 } },
  ],
});

describe('the judge detector on weft server', () => {
  it('reads WEFT_JUDGE_* and refuses settings it cannot use, naming the variable', () => {
    expect(
      serverOptionsFromEnv({
        WEFT_JUDGE_MODEL: 'openai-compatible:llama3.2',
        WEFT_JUDGE_BASE_URL: 'http://127.0.0.1:11434/v1',
        WEFT_JUDGE_API_KEY_SECRET: 'JUDGE',
        WEFT_JUDGE_TIMEOUT_MS: '2500',
      }).judge,
    ).toEqual({
      model: 'openai-compatible:llama3.2',
      baseUrl: 'http://127.0.0.1:11434/v1',
      apiKeySecret: 'JUDGE',
      timeoutMs: 2500,
    });
    const refused = (env: Record<string, string>) => {
      try {
        const settings = serverOptionsFromEnv(env).judge!;
        judgeDetectorOptions(settings, (name) => env[`WEFT_SECRET_${name}`]);
      } catch (error) {
        return (error as { details: { field: string } }).details.field;
      }
      return 'accepted';
    };
    expect(refused({ WEFT_JUDGE_BASE_URL: 'http://x' })).toBe('WEFT_JUDGE_MODEL');
    expect(refused({ WEFT_JUDGE_MODEL: 'llama3' })).toBe('WEFT_JUDGE_MODEL');
    expect(refused({ WEFT_JUDGE_MODEL: 'openai-compatible:llama3' })).toBe('WEFT_JUDGE_BASE_URL');
    expect(
      refused({ WEFT_JUDGE_MODEL: 'openai:gpt-4o-mini', WEFT_JUDGE_BASE_URL: 'ftp://x' }),
    ).toBe('WEFT_JUDGE_BASE_URL');
    expect(refused({ WEFT_JUDGE_MODEL: 'anthropic:claude-haiku-4-5' })).toBe('WEFT_JUDGE_API_KEY');
    expect(refused({ WEFT_JUDGE_MODEL: 'openai:gpt-4o-mini', WEFT_JUDGE_TIMEOUT_MS: 'soon' })).toBe(
      'WEFT_JUDGE_TIMEOUT_MS',
    );
    expect(
      refused({ WEFT_JUDGE_MODEL: 'openai:gpt-4o-mini', WEFT_JUDGE_API_KEY_SECRET: 'MISSING' }),
    ).toBe('WEFT_JUDGE_API_KEY_SECRET');
    expect(
      refused({
        WEFT_JUDGE_MODEL: 'openai:gpt-4o-mini',
        WEFT_JUDGE_API_KEY: 'sk-1',
        WEFT_JUDGE_API_KEY_SECRET: 'K',
        WEFT_SECRET_K: 'sk-2',
      }),
    ).toBe('WEFT_JUDGE_API_KEY_SECRET');
    expect(refused({ WEFT_JUDGE_MODEL: 'openai:gpt-4o-mini', WEFT_JUDGE_API_KEY: 'sk-1' })).toBe(
      'accepted',
    );
  });

  it('refuses to start on a judge setting it cannot use', async () => {
    await expect(
      start({ WEFT_JUDGE_MODEL: 'openai-compatible:llama3', WEFT_JUDGE_BASE_URL: 'nowhere' }),
    ).rejects.toMatchObject({ code: 'VALIDATION', details: { field: 'WEFT_JUDGE_BASE_URL' } });
  });

  it('runs a workflow that chooses it, with the key from WEFT_SECRET_<NAME>', async () => {
    const { server, key } = await start({
      WEFT_JUDGE_MODEL: 'openai-compatible:judge-1',
      WEFT_JUDGE_BASE_URL: model.url,
      WEFT_JUDGE_API_KEY_SECRET: 'JUDGE_KEY',
      WEFT_SECRET_JUDGE_KEY: 'sk-judge-1',
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
    const before = model.requests.length;
    expect((await run('have a nice day')).status).toBe('completed');
    const rude = await run('you idiot');
    expect(rude.status).toBe('failed');
    expect(rude.result.steps.answer.error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'guardrails.toxicityThreshold', score: 0.97 },
    });
    expect(JSON.stringify(rude.result.steps.answer.error)).not.toContain('idiot');
    const asked = model.requests.slice(before);
    expect(asked.map((request) => request.headers.authorization)).toEqual([
      'Bearer sk-judge-1',
      'Bearer sk-judge-1',
    ]);
    expect(asked[0]!.body).toMatchObject({ model: 'judge-1' });
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
    const deployed = await server.app.inject({
      method: 'PUT',
      url: '/workflows/polite',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: JSON.stringify(workflow('x')),
    });
    expect(deployed.statusCode).toBe(400);
    expect(deployed.json(), deployed.body).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'guardrails.detectors.toxicity', constraint: 'unknown_detector' },
    });
  });

  it('fails the step closed, naming the detector, when the model is unreachable', async () => {
    const { server, key } = await start({
      WEFT_JUDGE_MODEL: 'openai-compatible:judge-1',
      WEFT_JUDGE_BASE_URL: 'http://127.0.0.1:1/v1',
    });
    const answer = await server.app.inject({
      method: 'POST',
      url: '/workflows/executions',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        prefer: 'wait=20',
      },
      payload: JSON.stringify({ workflow: workflow('a secret sentence') }),
    });
    const record = answer.json();
    expect(record.status).toBe('failed');
    expect(record.result.steps.answer.error).toMatchObject({
      code: 'BACKEND_ERROR',
      message: expect.stringContaining('toxicity detector "judge"'),
      details: { backend: 'judge', detector: 'judge' },
    });
    // The step's own input is recorded as always; the judged text is in no error.
    expect(JSON.stringify([record.error, record.result.steps.answer.error])).not.toContain(
      'secret',
    );
  });
});
