import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModelServer } from '@weft/agents/testing';
import { createConnectorService, type ConnectorService } from '@weft/sdk/service';
import { createLocalKey } from './local-keys.js';
import { startServer, type RunningServer } from './start.js';
import { pluginDefinition } from './test-support/harness.js';

// Agent steps of the server's own runs whose tools its router serves: the tool's schema is the
// published definition of the version the router's instances registered, not the latest one;
// a served plugin that is not published fails the step, naming the tool. Over real HTTP.
const dataDir = mkdtempSync(join(tmpdir(), 'weft-server-agents-router-'));
let server: RunningServer;
let model: ScriptedModelServer;
const services: ConnectorService[] = [];
let key: string;

const schemaV1 = {
  type: 'object',
  properties: { id: { type: 'string' } },
  required: ['id'],
  additionalProperties: false,
};
const schemaV2 = { type: 'object', properties: { customer: { type: 'string' } } };
const action = (inputSchema: object) => ({
  actions: [{ name: 'lookup', description: 'Finds a customer', input_schema: inputSchema }],
});

/** What the tests read of an answer (an execution record, or an error). */
interface Execution {
  status: string;
  result: {
    steps: Record<
      string,
      { output: { tool_calls: unknown[] }; error: { code: string; message: string } }
    >;
  };
}

async function call(method: string, path: string, body: object, headers = {}) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Execution };
}

beforeAll(async () => {
  model = await new ScriptedModelServer((body) => {
    const messages = body['messages'] as { role: string; content: string }[];
    const tools = body['tools'] as { function: { name: string } }[];
    return messages.at(-1)!.role === 'tool'
      ? {
          text: `Found: ${messages.at(-1)!.content}`,
          usage: { prompt_tokens: 9, completion_tokens: 3 },
        }
      : {
          toolCalls: [{ name: tools[0]!.function.name, arguments: '{"id":"42"}' }],
          usage: { prompt_tokens: 8, completion_tokens: 2 },
        };
  }).start();
  const agents = join(dataDir, 'agents');
  mkdirSync(agents);
  for (const slug of ['crm', 'ledger']) {
    writeFileSync(
      join(agents, `${slug}.yaml`),
      `agent:\n  namespace: t\n  name: ${slug}-helper\n  version: 1.0.0\n  model: openai-compatible:m\n  base_url: ${model.url}\n  tools: [${slug}.lookup]\n`,
    );
  }
  server = await startServer({
    port: 0,
    host: '127.0.0.1',
    dataDir,
    logLevel: 'silent',
    agentsDir: agents,
  });
  key = (await createLocalKey({ dataDir }, { name: 'acme' })).key;
  for (const [method, path, version, schema] of [
    ['POST', '/plugins', '1.0.0', schemaV1],
    ['PUT', '/plugins/crm', '2.0.0', schemaV2],
  ] as const) {
    const published = await call(method, path, pluginDefinition('crm', version, action(schema)));
    expect(published.status, JSON.stringify(published.json)).toBeLessThan(300);
  }
  for (const slug of ['crm', 'ledger']) {
    services.push(
      await createConnectorService({
        connector: {
          connector: { kind: 'function', name: slug, namespace: 't', version: '1.0.0' },
          actions: [{ name: 'lookup', input_schema: schemaV1 }],
        },
        handlers: { lookup: (input: { id: string }) => ({ name: `Ada #${input.id}` }) },
        routerUrl: server.url,
        instanceId: `${slug}-1`,
        handleSignals: false,
        logger: pino({ level: 'silent' }),
      }),
    );
  }
}, 30_000);

afterAll(async () => {
  for (const service of services) await service.close();
  await server?.close();
  await model?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const runAgent = (slug: string) =>
  call(
    'POST',
    '/workflows/executions',
    {
      workflow: {
        name: 'ask',
        steps: [
          {
            name: 'a',
            type: 'agent',
            agent: `agent:t/${slug}-helper@^1`,
            input: { prompt: 'Who is customer 42?' },
          },
        ],
      },
    },
    { prefer: 'wait=20' },
  );

describe('agent steps of weft server with tools its router serves', () => {
  it('check the arguments against the schema of the version the instances serve', async () => {
    const before = model.requests.length;
    const answer = await runAgent('crm');
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    expect(answer.json.status).toBe('completed');
    expect(answer.json.result.steps['a']!.output.tool_calls).toEqual([
      { name: 'crm_lookup', input: { id: '42' }, output: { name: 'Ada #42' } },
    ]);
    const tools = model.requests[before]!.body['tools'] as {
      function: { parameters: Record<string, unknown> };
    }[];
    expect(tools[0]!.function.parameters).toMatchObject({ required: ['id'] });
  });

  it('fail the step, naming the tool, when the served plugin is not published', async () => {
    const before = model.requests.length;
    const answer = await runAgent('ledger');
    expect(answer.json.status).toBe('failed');
    const error = answer.json.result.steps['a']!.error;
    expect(error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'agent.tools', constraint: 'input_schema', tool: 'ledger_lookup' },
    });
    expect(error.message).toContain(
      "tool ledger_lookup: ledger@1.0.0 (the version the router's instances serve) is not published",
    );
    expect(model.requests.length).toBe(before);
  });
});
