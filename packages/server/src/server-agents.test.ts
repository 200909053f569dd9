import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModelServer } from '@weft/agents/testing';
import { createApiKey } from '@weft/identity';
import { buildServer, type BuiltServer } from './build.js';
import { pluginDefinition } from './test-support/harness.js';

/** Agent steps on `weft server`: definitions from --agents, keys from WEFT_SECRET_*, tools from the registry. */
let model: ScriptedModelServer;
let service: Server;
let server: BuiltServer;
let dataDir: string;
const KEY = 'sk-server-secret-42';

beforeAll(async () => {
  model = await new ScriptedModelServer((body) => {
    const messages = body['messages'] as { role: string }[];
    return messages.at(-1)!.role === 'tool'
      ? { text: 'Thing 7 is blue.', usage: { prompt_tokens: 40, completion_tokens: 6 } }
      : {
          toolCalls: [{ name: 'things_get', arguments: '{"id":"7"}' }],
          usage: { prompt_tokens: 30, completion_tokens: 4 },
        };
  }).start();
  service = createServer((request, response) => {
    request
      .resume()
      .on('end', () =>
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"color":"blue"}'),
      );
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  dataDir = mkdtempSync(join(tmpdir(), 'weft-server-agents-'));
  const agents = join(dataDir, 'agents');
  mkdirSync(agents);
  writeFileSync(
    join(agents, 'things.yaml'),
    `agent:\n  namespace: acme\n  name: things\n  version: 1.0.0\n  model: openai-compatible:scripted\n  base_url: ${model.url}\n  api_key_secret: MODEL_KEY\n  tools: [things.get]\n`,
  );
  server = await buildServer(
    {
      dataDir,
      logLevel: 'silent',
      egressAllowlist: ['127.0.0.0/8'],
      agentsDir: agents,
      runtimeSecrets: { MODEL_KEY: KEY },
    },
    { logger: false },
  );
});

afterAll(async () => {
  await server.close();
  await model.close();
  service.closeAllConnections();
  await new Promise<void>((resolve) => service.close(() => resolve()));
  rmSync(dataDir, { recursive: true, force: true });
});

describe('agent steps on weft server', () => {
  it('run with the key from the runtime secrets and a published plugin as the tool', async () => {
    const key = await createApiKey(server.store, { name: 'acme' }, new Date().toISOString());
    const headers = { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' };
    const port = (service.address() as AddressInfo).port;
    const plugin = pluginDefinition('things', '1.0.0', {
      connector: {
        kind: 'http',
        name: 'things',
        namespace: 'acme',
        version: '1.0.0',
        base_url: `http://127.0.0.1:${port}`,
      },
      actions: [
        {
          name: 'get',
          description: 'Gets a thing',
          input_schema: {
            type: 'object',
            properties: { id: { type: 'string' } },
            required: ['id'],
          },
          output_schema: { type: 'object' },
          request: { method: 'GET', url: '/things/{{ inputs.id }}' },
        },
      ],
    });
    const published = await server.app.inject({
      method: 'POST',
      url: '/plugins',
      headers,
      payload: JSON.stringify(plugin),
    });
    expect(published.statusCode, published.body).toBe(201);
    const workflow = {
      name: 'ask',
      steps: [
        {
          name: 'a',
          type: 'agent',
          agent: 'agent:acme/things@^1',
          input: { prompt: 'What color is thing 7?' },
        },
      ],
    };
    const answer = await server.app.inject({
      method: 'POST',
      url: '/workflows/executions',
      headers: { ...headers, prefer: 'wait=20' },
      payload: JSON.stringify({ workflow }),
    });
    expect(answer.statusCode, answer.body).toBe(200);
    const record = answer.json();
    expect(record.status).toBe('completed');
    expect(record.result.steps.a.output).toMatchObject({
      text: 'Thing 7 is blue.',
      tool_calls: [{ name: 'things_get', input: { id: '7' }, output: { color: 'blue' } }],
      usage: { input_tokens: 70, output_tokens: 10, total_tokens: 80, tool_calls: 1 },
    });
    expect(model.requests[0]!.headers['authorization']).toBe(`Bearer ${KEY}`);
    expect(answer.body).not.toContain(KEY);
  });
});
