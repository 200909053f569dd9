import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModelServer } from '@weft/agents/testing';
import { createApiKey } from '@weft/identity';
import { buildServer, type BuiltServer } from './build.js';
import { serverOptionsFromEnv, type ServerOptions } from './config.js';

/**
 * The secrets of published agents (`WEFT_PUBLISHED_AGENT_SECRETS`), over real HTTP against a
 * server on SQLite, with the scripted model server as the model: a published agent reads only
 * the secrets the operator allows (none by default), the `--agents` directory's read any.
 */
const SECRETS = {
  MODEL_KEY: 'sk-model-key-1',
  PUBLISHED_MODEL: 'sk-published-2',
  DB_PASSWORD: 'pw-3',
};
let model: ScriptedModelServer;
const dirs: string[] = [];
const servers: BuiltServer[] = [];

beforeAll(async () => {
  model = await new ScriptedModelServer(() => ({
    text: 'hello',
    usage: { prompt_tokens: 3, completion_tokens: 2 },
  })).start();
});

afterAll(async () => {
  for (const server of servers) await server.close();
  await model.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const agentYaml = (name: string, secret: string | undefined) =>
  `agent:\n  namespace: acme\n  name: ${name}\n  version: 1.0.0\n  model: openai-compatible:scripted\n  base_url: ${model.url}\n${secret ? `  api_key_secret: ${secret}\n` : ''}`;

/** A listening server; every read of a runtime secret is recorded in `read`. */
async function start(options: ServerOptions, localAgents: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-published-secrets-'));
  dirs.push(dataDir);
  const agentsDir = join(dataDir, 'agents');
  mkdirSync(agentsDir);
  for (const [file, text] of Object.entries(localAgents)) {
    writeFileSync(join(agentsDir, file), text);
  }
  const read: string[] = [];
  const runtimeSecrets = new Proxy<Record<string, string>>(SECRETS, {
    get: (target, name) => {
      if (typeof name === 'string') read.push(name);
      return target[name as string];
    },
  });
  const server = await buildServer(
    {
      ...options,
      dataDir,
      agentsDir,
      logLevel: 'silent',
      egressAllowlist: ['127.0.0.0/8'],
      runtimeSecrets,
    },
    { logger: false },
  );
  servers.push(server);
  const url = await server.app.listen({ port: 0, host: '127.0.0.1' });
  const key = (await createApiKey(server.store, { name: 'acme' }, new Date().toISOString())).key;
  const headers = { authorization: `Bearer ${key}` };
  const publish = async (name: string, secret: string | undefined) => {
    const answer = await fetch(`${url}/plugins`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/yaml' },
      body: agentYaml(name, secret),
    });
    expect(answer.status, await answer.clone().text()).toBe(201);
  };
  const run = async (name: string) => {
    const workflow = {
      name: 'ask',
      steps: [
        { name: 'a', type: 'agent', agent: `agent:acme/${name}@^1`, input: { prompt: 'Hi' } },
      ],
    };
    const answer = await fetch(`${url}/workflows/executions`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', prefer: 'wait=20' },
      body: JSON.stringify({ workflow }),
    });
    expect(answer.status).toBe(200);
    return (await answer.json()) as Record<string, unknown> & {
      status: string;
      error?: { code: string; message: string; details: Record<string, unknown> };
    };
  };
  return { publish, run, read };
}

describe('published agents and the server secrets', () => {
  it('refuses, with no setting, a published agent naming a secret: the secret is never read', async () => {
    const s = await start({});
    await s.publish('stealer', 'DB_PASSWORD');
    const before = model.requests.length;
    const record = await s.run('stealer');
    expect(record.status).toBe('failed');
    expect(record.error).toMatchObject({
      code: 'VALIDATION',
      details: {
        field: 'agent.api_key_secret',
        constraint: 'published_agent_secrets',
        agent: 'agent:acme/stealer@1.0.0',
        secret: 'DB_PASSWORD',
        setting: 'WEFT_PUBLISHED_AGENT_SECRETS',
      },
    });
    expect(record.error!.message).toContain('add DB_PASSWORD to WEFT_PUBLISHED_AGENT_SECRETS');
    expect(s.read).not.toContain('DB_PASSWORD');
    expect(model.requests.length).toBe(before);
    expect(JSON.stringify(record)).not.toContain(SECRETS.DB_PASSWORD);
    // A published agent that names no secret runs.
    await s.publish('keyless', undefined);
    expect((await s.run('keyless')).status).toBe('completed');
  });

  it('lets published agents read the names and prefixes of WEFT_PUBLISHED_AGENT_SECRETS only', async () => {
    const s = await start(
      serverOptionsFromEnv({ WEFT_PUBLISHED_AGENT_SECRETS: ' MODEL_KEY , PUBLISHED_* ' }),
    );
    await s.publish('named', 'MODEL_KEY');
    await s.publish('prefixed', 'PUBLISHED_MODEL');
    await s.publish('other', 'DB_PASSWORD');
    expect((await s.run('named')).status).toBe('completed');
    expect(model.requests.at(-1)!.headers['authorization']).toBe(`Bearer ${SECRETS.MODEL_KEY}`);
    expect((await s.run('prefixed')).status).toBe('completed');
    expect(model.requests.at(-1)!.headers['authorization']).toBe(
      `Bearer ${SECRETS.PUBLISHED_MODEL}`,
    );
    const refused = await s.run('other');
    expect(refused.error).toMatchObject({
      code: 'VALIDATION',
      details: { constraint: 'published_agent_secrets', secret: 'DB_PASSWORD' },
    });
    expect(s.read).not.toContain('DB_PASSWORD');
  });

  it("gives the --agents directory's agents every secret", async () => {
    const s = await start({}, { 'local.yaml': agentYaml('local', 'DB_PASSWORD') });
    const record = await s.run('local');
    expect(record.status, JSON.stringify(record.error)).toBe('completed');
    expect(model.requests.at(-1)!.headers['authorization']).toBe(`Bearer ${SECRETS.DB_PASSWORD}`);
  });

  it('refuses to start on a value of WEFT_PUBLISHED_AGENT_SECRETS it cannot use, naming it', async () => {
    for (const value of ['*', 'MODEL_KEY,,OTHER', 'MODEL-KEY', 'A*B', '9LIVES']) {
      expect(() => serverOptionsFromEnv({ WEFT_PUBLISHED_AGENT_SECRETS: value }), value).toThrow(
        /WEFT_PUBLISHED_AGENT_SECRETS/,
      );
    }
    await expect(start({ publishedAgentSecrets: ['*'] })).rejects.toMatchObject({
      code: 'VALIDATION',
      details: { field: 'WEFT_PUBLISHED_AGENT_SECRETS', constraint: 'pattern' },
    });
    expect(serverOptionsFromEnv({ WEFT_PUBLISHED_AGENT_SECRETS: '  ' })).not.toHaveProperty(
      'publishedAgentSecrets',
    );
  });
});
