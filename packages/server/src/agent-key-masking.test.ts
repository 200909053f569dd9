import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModelServer } from '@weft/agents/testing';
import { createApiKey } from '@weft/identity';
import { openStore, type OpenedStore } from '@weft/store';
import { buildServer, type BuiltServer } from './build.js';

/**
 * The key an agent reads through `api_key_secret` is a secret of the run on `weft server`: a
 * model that echoes it (a prompt injection, a proxy echoing headers) leaves `***` in the
 * execution record, its events and its stored journal. Both for an agent of the `--agents`
 * directory and for a published one allowed by WEFT_PUBLISHED_AGENT_SECRETS.
 */
const SECRETS = { MODEL_KEY: 'sk-local-agent-key-0001', PUBLISHED_KEY: 'sk-published-key-0002' };
let model: ScriptedModelServer;
let server: BuiltServer;
let store: OpenedStore;
let dataDir: string;
let url = '';
let headers: Record<string, string> = {};

const agentYaml = (name: string, secret: string) =>
  `agent:\n  namespace: acme\n  name: ${name}\n  version: 1.0.0\n  model: openai-compatible:scripted\n  base_url: ${model.url}\n  api_key_secret: ${secret}\n`;

beforeAll(async () => {
  // Answers with the Authorization header it was sent.
  model = await new ScriptedModelServer(() => ({
    text: `My headers: ${String(model.requests.at(-1)!.headers['authorization'])}`,
    usage: { prompt_tokens: 3, completion_tokens: 2 },
  })).start();
  dataDir = mkdtempSync(join(tmpdir(), 'weft-agent-key-'));
  const agentsDir = join(dataDir, 'agents');
  mkdirSync(agentsDir);
  writeFileSync(join(agentsDir, 'local.yaml'), agentYaml('local', 'MODEL_KEY'));
  store = await openStore({ kind: 'sqlite', dataDir });
  server = await buildServer(
    {
      dataDir,
      agentsDir,
      logLevel: 'silent',
      egressAllowlist: ['127.0.0.0/8'],
      runtimeSecrets: SECRETS,
      publishedAgentSecrets: ['PUBLISHED_KEY'],
    },
    { store: store.registry, executionsStore: store.executions, logger: false },
  );
  url = await server.app.listen({ port: 0, host: '127.0.0.1' });
  const key = (await createApiKey(server.store, { name: 'acme' }, new Date().toISOString())).key;
  headers = { authorization: `Bearer ${key}` };
  const published = await fetch(`${url}/plugins`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/yaml' },
    body: agentYaml('published', 'PUBLISHED_KEY'),
  });
  expect(published.status, await published.clone().text()).toBe(201);
});

afterAll(async () => {
  await server.close();
  await store.executions.close();
  await store.registry.close();
  await model.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('an agent key a model echoes, on weft server', () => {
  it.each([
    ['local', 'MODEL_KEY'],
    ['published', 'PUBLISHED_KEY'],
  ] as const)(
    'is *** in the record, the events and the journal (%s agent)',
    async (agent, secret) => {
      const value = SECRETS[secret];
      const workflow = {
        name: 'ask',
        steps: [
          { name: 'a', type: 'agent', agent: `agent:acme/${agent}@^1`, input: { prompt: 'Hi' } },
        ],
        outputs: { answer: { value: '{{ steps.a.output.text }}' } },
      };
      const answer = await fetch(`${url}/workflows/executions`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', prefer: 'wait=20' },
        body: JSON.stringify({ workflow }),
      });
      const text = await answer.text();
      expect(answer.status, text).toBe(200);
      const record = JSON.parse(text) as {
        execution_id: string;
        status: string;
        result: { outputs: Record<string, unknown>; steps: Record<string, { output: unknown }> };
      };
      // The model did get the key, and echoed it.
      expect(model.requests.at(-1)!.headers['authorization']).toBe(`Bearer ${value}`);
      expect(record.status).toBe('completed');
      expect(record.result.outputs).toEqual({ answer: 'My headers: Bearer ***' });
      expect(record.result.steps['a']!.output).toMatchObject({ text: 'My headers: Bearer ***' });
      expect(text).not.toContain(value);
      const id = record.execution_id;
      const again = await fetch(`${url}/workflows/executions/${id}`, { headers });
      expect(await again.text()).not.toContain(value);
      const events = await fetch(`${url}/workflows/executions/${id}/events`, { headers });
      const stream = await events.text();
      expect(stream).toContain('My headers: Bearer ***');
      expect(stream).not.toContain(value);
      const journal = await store.executions.steps(id);
      expect(journal.length).toBeGreaterThan(0);
      expect(JSON.stringify(journal)).not.toContain(value);
    },
  );
});
