import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ScriptedModelServer } from '@weft/agents/testing';
import { createConnectorService, type ConnectorService } from '@weft/sdk/service';
import { createLocalKey, startServer, type RunningServer } from '@weft/server';
import { run } from '../test-support.js';

// `weft workflow run --router`: the tools of an agent step run through the router, and their
// input schemas come from the registry of the router's server, for the version its instances
// serve. Everything over real HTTP: the server (registry + router), a connector service, the
// scripted model.
const dir = mkdtempSync(join(tmpdir(), 'weft-router-agents-'));
let server: RunningServer;
let model: ScriptedModelServer;
let services: ConnectorService[] = [];
let key: string;

const schemaV1 = {
  type: 'object',
  properties: { id: { type: 'string', description: 'customer id' } },
  required: ['id'],
  additionalProperties: false,
};
const schemaV2 = {
  type: 'object',
  properties: { customer: { type: 'string' } },
  required: ['customer'],
};

/** A plugin definition for the registry, with one action `lookup` of `inputSchema`. */
const published = (slug: string, version: string, inputSchema: object) => ({
  slug,
  version,
  name: slug,
  description: `Looks customers up (${version})`,
  author: 'Acme',
  homepage: `https://example.com/${slug}`,
  repository: `https://github.com/acme/${slug}`,
  license: 'MIT',
  tags: ['test'],
  icon: `https://example.com/${slug}.svg`,
  actions: [{ name: 'lookup', description: 'Finds a customer by id', input_schema: inputSchema }],
});

async function api(method: string, path: string, body: object) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
}

/** A connector service of `slug` 1.0.0 with action `lookup`, registered with the router. */
function serve(slug: string) {
  return createConnectorService({
    connector: {
      connector: { kind: 'function', name: slug, namespace: 't', version: '1.0.0' },
      actions: [{ name: 'lookup', input_schema: schemaV1 }],
    },
    handlers: { lookup: (input: { id: string }) => ({ name: `Ada #${input.id}`, plan: 'gold' }) },
    routerUrl: server.url,
    instanceId: `${slug}-1`,
    handleSignals: false,
    logger: pino({ level: 'silent' }),
  });
}

/** An agent directory with one agent whose only tool is `<slug>.lookup`. */
function agentDir(slug: string): string {
  const agents = mkdtempSync(join(dir, 'agents-'));
  writeFileSync(
    join(agents, 'helper.yaml'),
    `agent:
  namespace: t
  name: helper
  version: 1.0.0
  description: Looks customers up
  model: openai-compatible:m
  base_url: ${model.url}
  tools: [${slug}.lookup]
`,
  );
  return agents;
}

const flow = join(dir, 'flow.yaml');
writeFileSync(
  flow,
  `workflows:
  - name: ask
    steps:
      - { name: answer, type: agent, agent: "agent:t/helper@^1", input: { prompt: What plan is customer 42 on? } }
    outputs:
      text: { value: '{{ steps.answer.output.text }}' }
`,
);

beforeAll(async () => {
  for (const name of ['WORKFLOW_CLOUD_URL', 'WORKFLOW_REGISTRY_URL', 'WORKFLOW_REGISTRY_API_KEY'])
    vi.stubEnv(name, undefined);
  server = await startServer({
    port: 0,
    host: '127.0.0.1',
    dataDir: join(dir, 'server'),
    logLevel: 'error',
  });
  key = (await createLocalKey({ dataDir: join(dir, 'server') }, { name: 'cli' })).key;
  // The model calls the tool, then answers from what the tool gave back.
  model = await new ScriptedModelServer((body) => {
    const messages = body['messages'] as { role: string; content: string }[];
    const tool = messages.find((m) => m.role === 'tool');
    return tool
      ? { text: `Answer: ${tool.content}`, usage: { prompt_tokens: 20, completion_tokens: 5 } }
      : {
          toolCalls: [
            {
              name: (body['tools'] as { function: { name: string } }[])[0]!.function.name,
              arguments: '{"id":"42"}',
            },
          ],
          usage: { prompt_tokens: 10, completion_tokens: 5 },
        };
  }).start();
  // crm: published 1.0.0 (served by the instance) and 2.0.0 (the latest, another schema).
  await api('POST', '/plugins', published('crm', '1.0.0', schemaV1));
  await api('PUT', '/plugins/crm', published('crm', '2.0.0', schemaV2));
  services = [await serve('crm'), await serve('ledger')];
}, 30_000);

afterAll(async () => {
  for (const service of services) await service.close();
  await server?.close();
  await model?.close();
});

const runVia = (agents: string) =>
  run(
    'workflow',
    'run',
    flow,
    '--router',
    server.url,
    '--router-token',
    key,
    '--agents',
    agents,
    '-o',
    'json',
  );

describe('weft workflow run --router with an agent step', () => {
  it('gives the model the input_schema of the version the router serves, and runs the tool there', async () => {
    const before = model.requests.length;
    const result = await runVia(agentDir('crm'));
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    const document = JSON.parse(result.out) as {
      outputs: { text: string };
      steps: Record<string, { output: { tool_calls: { name: string; output: unknown }[] } }>;
    };
    expect(document.outputs.text).toContain('Ada #42');
    expect(document.steps['answer']!.output.tool_calls).toEqual([
      { name: 'crm_lookup', input: { id: '42' }, output: { name: 'Ada #42', plan: 'gold' } },
    ]);
    // 1.0.0's schema (what the instance registered), not the latest 2.0.0's.
    const tools = model.requests[before]!.body['tools'] as {
      function: { name: string; description: string; parameters: Record<string, unknown> };
    }[];
    expect(tools[0]!.function).toMatchObject({
      name: 'crm_lookup',
      description: 'Finds a customer by id',
      parameters: { properties: { id: { type: 'string' } }, required: ['id'] },
    });
  });

  it('reads the schema from the --server in hybrid mode for a tool placed cloud', async () => {
    const before = model.requests.length;
    const result = await run(
      'workflow',
      'run',
      flow,
      '--mode',
      'hybrid',
      '--server',
      server.url,
      '--api-key',
      key,
      '--execution',
      'crm=cloud',
      '--agents',
      agentDir('crm'),
      '-o',
      'json',
    );
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out).outputs.text).toContain('Ada #42');
    const tools = model.requests[before]!.body['tools'] as {
      function: { parameters: Record<string, unknown> };
    }[];
    expect(tools[0]!.function.parameters).toMatchObject({ required: ['id'] });
  });

  it('fails closed, naming the tool and why, when the served plugin is not published', async () => {
    const before = model.requests.length;
    const result = await runVia(agentDir('ledger'));
    expect(result.code).toBe(1);
    const document = JSON.parse(result.out) as {
      steps: Record<string, { error: { code: string; message: string; details: object } }>;
    };
    const error = document.steps['answer']!.error;
    expect(error.code).toBe('VALIDATION');
    expect(error.message).toContain('tool ledger_lookup:');
    expect(error.message).toContain(`not published to the registry of the router at ${server.url}`);
    expect(error.details).toMatchObject({
      field: 'agent.tools',
      constraint: 'input_schema',
      tool: 'ledger_lookup',
      reason: 'published',
    });
    // The model was never called: a tool whose arguments cannot be checked never reaches it.
    expect(model.requests.length).toBe(before);
  });
});

describe('weft workflow run --router on a router with WEFT_ROUTER_TOKEN', () => {
  const token = 'router-token-0123456789';
  let guarded: RunningServer;
  let guardedKey: string;
  let service: ConnectorService;

  beforeAll(async () => {
    const data = join(dir, 'guarded');
    guarded = await startServer({
      port: 0,
      host: '127.0.0.1',
      dataDir: data,
      logLevel: 'error',
      routerToken: token,
    });
    guardedKey = (await createLocalKey({ dataDir: data }, { name: 'cli' })).key;
    for (const [method, path, version, schema] of [
      ['POST', '/plugins', '1.0.0', schemaV1],
      ['PUT', '/plugins/crm', '2.0.0', schemaV2],
    ] as const) {
      const response = await fetch(`${guarded.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${guardedKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(published('crm', version, schema)),
      });
      expect(response.status).toBeLessThan(300);
    }
    service = await createConnectorService({
      connector: {
        connector: { kind: 'function', name: 'crm', namespace: 't', version: '1.0.0' },
        actions: [{ name: 'lookup', input_schema: schemaV1 }],
      },
      handlers: { lookup: (input: { id: string }) => ({ name: `Ada #${input.id}` }) },
      routerUrl: guarded.url,
      routerToken: token,
      instanceId: 'crm-guarded',
      handleSignals: false,
      logger: pino({ level: 'silent' }),
    });
  }, 30_000);

  afterAll(async () => {
    await service?.close();
    await guarded?.close();
  });

  /** The parameters the model was given for its tool, running with `credential`. */
  async function parametersWith(credential: string) {
    const before = model.requests.length;
    const result = await run(
      'workflow',
      'run',
      flow,
      '--router',
      guarded.url,
      '--router-token',
      credential,
      '--agents',
      agentDir('crm'),
      '-o',
      'json',
    );
    expect(result.code, result.out).toBe(0);
    const tools = model.requests[before]!.body['tools'] as {
      function: { parameters: Record<string, unknown> };
    }[];
    return tools[0]!.function.parameters;
  }

  it('reads the served version with the router token, the latest published with an API key', async () => {
    // The router token reads GET /routes: 1.0.0, what the instance registered.
    expect(await parametersWith(token)).toMatchObject({ required: ['id'] });
    // An API key runs actions but cannot read the table: the latest published version, 2.0.0.
    expect(await parametersWith(guardedKey)).toMatchObject({
      properties: { customer: { type: 'string' } },
    });
  });
});
