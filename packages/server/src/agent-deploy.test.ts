import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '@weft/identity';
import { buildServer, type BuiltServer } from './build.js';

// Over real HTTP against a server on SQLite: deploying a workflow checks its agent steps as a
// run would (the server's agent runner: its --agents directory, the registry's published agents,
// WEFT_PUBLISHED_AGENT_SECRETS), one warning per step it cannot run; strict refuses.
const dataDir = mkdtempSync(join(tmpdir(), 'weft-agent-deploy-'));
let server: BuiltServer;
let url: string;
let key: string;

const agentYaml = (name: string, version: string, secret?: string) =>
  `agent:\n  namespace: acme\n  name: ${name}\n  version: ${version}\n  model: openai-compatible:m\n  base_url: http://127.0.0.1:9/v1\n${secret ? `  api_key_secret: ${secret}\n` : ''}`;

beforeAll(async () => {
  const agentsDir = join(dataDir, 'agents');
  mkdirSync(agentsDir);
  // The directory's agents read any secret.
  writeFileSync(join(agentsDir, 'local.yaml'), agentYaml('local', '1.0.0', 'DB_PASSWORD'));
  server = await buildServer(
    { dataDir, agentsDir, logLevel: 'silent', publishedAgentSecrets: ['PUBLISHED_*'] },
    { logger: false },
  );
  url = await server.app.listen({ port: 0, host: '127.0.0.1' });
  key = (await createApiKey(server.store, { name: 'acme' }, new Date().toISOString())).key;
  await publish('open', '1.0.0');
  await publish('keyed', '1.0.0', 'PUBLISHED_MODEL');
  await publish('stealer', '1.0.0', 'DB_PASSWORD');
}, 30_000);

afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function publish(name: string, version: string, secret?: string) {
  const answer = await fetch(`${url}/plugins`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/yaml' },
    body: agentYaml(name, version, secret),
  });
  expect(answer.status, await answer.clone().text()).toBe(201);
}

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return {
    status: response.status,
    json: (await response.json()) as Record<string, unknown> & {
      warnings?: string[];
      details?: Record<string, unknown>;
    },
  };
}

const ask = (name: string, agent: string) => ({
  name,
  type: 'agent',
  agent,
  input: { prompt: 'hi' },
});

const SUPPORT = {
  name: 'support',
  steps: [
    ask('local', 'agent:acme/local@^1'),
    ask('open', 'agent:acme/open@^1'),
    ask('keyed', 'agent:acme/keyed@1.0.0'),
    ask('stealer', 'agent:acme/stealer@^1'),
    ask('nobody', 'agent:acme/nobody@^1'),
    {
      name: 'both',
      type: 'parallel',
      parallel: [ask('too-new', 'agent:acme/open@^2'), ask('nobody-again', 'agent:acme/nobody@^1')],
    },
  ],
};

const warningOf = (step: string, ref: string, reason: string) =>
  expect.stringMatching(
    new RegExp(
      `^agent step "${step}" references ${ref.replace(/[.^]/g, '\\$&')}, which this server cannot run: runs of "support" fail with VALIDATION until it can \\(.*${reason}`,
    ),
  );

describe('deploying agent steps (SQLite, over HTTP)', () => {
  it('warns of each agent step the server cannot run; strict refuses, a dry run deploys nothing', async () => {
    const checked = await call('PUT', '/workflows/support?dry_run=true', SUPPORT);
    expect(checked.status, JSON.stringify(checked.json)).toBe(200);
    expect(checked.json.status).toBe('checked');
    expect(checked.json.warnings).toEqual([
      warningOf(
        'stealer',
        'agent:acme/stealer@^1',
        'add DB_PASSWORD to WEFT_PUBLISHED_AGENT_SECRETS',
      ),
      warningOf('nobody', 'agent:acme/nobody@^1', 'unknown agent agent:acme/nobody@\\^1'),
      warningOf('too-new', 'agent:acme/open@^2', 'no version of agent acme/open matches "\\^2"'),
      warningOf('nobody-again', 'agent:acme/nobody@^1', 'unknown agent'),
    ]);

    const strict = await call('PUT', '/workflows/support?strict=true', SUPPORT);
    expect(strict.status).toBe(400);
    expect(strict.json).toMatchObject({
      status: 'error',
      code: 'VALIDATION',
      details: {
        field: 'workflow',
        constraint: 'strict',
        workflow: 'support',
        warnings: checked.json.warnings,
      },
    });
    expect((await call('GET', '/workflows/support')).status).toBe(404);

    const deployed = await call('PUT', '/workflows/support', SUPPORT);
    expect(deployed.status).toBe(201);
    expect(deployed.json.warnings).toEqual(checked.json.warnings);
  });

  it('sees a publication at once, and deploys strictly what it can run', async () => {
    const steps = [ask('ask', 'agent:acme/later@^1'), ask('local', 'agent:acme/local@1.0.0')];
    const before = await call('PUT', '/workflows/later?strict=true', { name: 'later', steps });
    expect(before.status).toBe(400);
    expect(before.json.details?.['warnings']).toEqual([
      expect.stringContaining('agent step "ask" references agent:acme/later@^1'),
    ]);
    await publish('later', '1.2.0');
    const after = await call('PUT', '/workflows/later?strict=true', { name: 'later', steps });
    expect(after.status, JSON.stringify(after.json)).toBe(201);
    expect(after.json.warnings).toEqual([]);
  });

  it('reads through the registry for an agent another replica published a moment ago', async () => {
    // A second server on the same registry store, with no runtime: its publications reach this
    // server's agent catalog only by reading the registry (SQLite announces nothing).
    const other = await buildServer(
      { dataDir: join(dataDir, 'other'), logLevel: 'silent' },
      { store: server.store, logger: false },
    );
    try {
      const published = await other.app.inject({
        method: 'POST',
        url: '/plugins',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/yaml' },
        payload: agentYaml('elsewhere', '1.0.0'),
      });
      expect(published.statusCode, published.body).toBe(201);
    } finally {
      await other.close();
    }
    const workflow = { name: 'elsewhere', steps: [ask('ask', 'agent:acme/elsewhere@^1')] };
    const deployed = await call('PUT', '/workflows/elsewhere?strict=true', workflow);
    expect(deployed.status, JSON.stringify(deployed.json)).toBe(201);
    expect(deployed.json.warnings).toEqual([]);
  });
});
