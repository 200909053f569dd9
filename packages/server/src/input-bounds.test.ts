import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_NESTING_DEPTH } from '@weft/core';
import { createApiKey } from '@weft/identity';
import { serverOptionsFromEnv } from './config.js';
import { startServer, type RunningServer } from './start.js';

interface ErrorBody {
  code: string;
  message: string;
  details: { constraint: string; limit: number };
}

/** `{"x":{"x":…{"a":1}…}}` nested `depth` objects deep. */
function deepObject(depth: number): string {
  return `${'{"x":'.repeat(depth - 1)}{"a":1}${'}'.repeat(depth - 1)}`;
}

/** A block-style YAML map nested `depth` levels deep. */
function deepYaml(depth: number): string {
  let text = 'slug: deep\nversion: 1.0.0\nextra:\n';
  for (let i = 1; i < depth; i++) text += `${' '.repeat(i)}x:\n`;
  return `${text}${' '.repeat(depth)}a: 1\n`;
}

/** A transform workflow whose input nests `depth` levels of maps inside the input. */
function workflowWith(input: string): string {
  return `{"name":"deep","steps":[{"name":"s","type":"transform","input":${input}}]}`;
}

// Each input path measures nesting before anything that recurses per level (JSON.parse, schema
// validation, serialising, composing YAML) walks it: a deep body answers 400 naming the limit,
// never a 500 or a stack overflow, and the server answers the next request as before.
describe('nesting depth of every HTTP input, over loopback', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-depth-'));
  let server: RunningServer;
  let key = '';

  beforeAll(async () => {
    server = await startServer(
      {
        port: 0,
        dataDir,
        logLevel: 'silent',
        ...serverOptionsFromEnv({ WEFT_MAX_FOR_EACH_ITEMS: '3' }),
      },
      { logger: false },
    );
    key = (await createApiKey(server.store, { name: 'acme' }, new Date().toISOString())).key;
  }, 30_000);
  afterAll(async () => {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const send = async (method: string, path: string, type: string, body: string) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': type },
      body,
    });
    return { status: response.status, json: (await response.json()) as ErrorBody };
  };
  const expectTooDeep = (answer: { status: number; json: ErrorBody }) => {
    expect(answer.status).toBe(400);
    expect(answer.json.code).toBe('VALIDATION');
    expect(answer.json.details.constraint).toBe('too_deep');
    expect(answer.json.details.limit).toBe(MAX_NESTING_DEPTH);
    expect(answer.json.message).toContain(`${MAX_NESTING_DEPTH} levels`);
  };

  it('refuses a 5,000-deep inline workflow in POST /workflows/executions', async () => {
    const body = `{"workflow":${workflowWith(deepObject(5_000))}}`;
    expectTooDeep(await send('POST', '/workflows/executions', 'application/json', body));
  });

  it('refuses an inline workflow nested just over the limit, and runs one well within it', async () => {
    const over = `{"workflow":${workflowWith(deepObject(MAX_NESTING_DEPTH))}}`;
    expectTooDeep(await send('POST', '/workflows/executions', 'application/json', over));
    const within = `{"workflow":${workflowWith(deepObject(20))}}`;
    const ran = await send('POST', '/workflows/executions', 'application/json', within);
    expect(ran.status).toBe(202);
  });

  it('refuses a 1,000-deep JSON definition in PUT /workflows/{name}', async () => {
    const body = workflowWith(deepObject(1_000));
    expectTooDeep(await send('PUT', '/workflows/deep', 'application/json', body));
  });

  it('refuses a 10,000-deep YAML definition in PUT /workflows/{name}', async () => {
    const flow = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const yaml = `name: deep\nsteps:\n  - name: s\n    type: transform\n    input:\n      x: ${flow}\n`;
    expectTooDeep(await send('PUT', '/workflows/deep', 'application/yaml', yaml));
  });

  it('refuses 10,000-deep YAML (block and flow) and JSON plugin definitions in POST and PUT /plugins', async () => {
    expectTooDeep(await send('POST', '/plugins', 'application/yaml', deepYaml(1_000)));
    const flow = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    expectTooDeep(await send('POST', '/plugins', 'application/yaml', flow));
    expectTooDeep(await send('POST', '/plugins', 'application/json', flow));
    expectTooDeep(await send('PUT', '/plugins/deep', 'application/yaml', flow));
  });

  it('refuses deep JSON on the router, the keys API and the action calls, and the server goes on', async () => {
    const call = `{"action":"http.get","input":${deepObject(10_000)}}`;
    expectTooDeep(await send('POST', '/execute', 'application/json', call));
    expectTooDeep(await send('POST', '/http/execute', 'application/json', call));
    const register = `{"plugin_slug":"x","instance_id":"i","url":"http://127.0.0.1:1","actions":${deepObject(10_000)}}`;
    expectTooDeep(await send('POST', '/register', 'application/json', register));
    expectTooDeep(await send('POST', '/auth/keys', 'application/json', deepObject(10_000)));
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
  });

  it('fails a for_each over WEFT_MAX_FOR_EACH_ITEMS with VALIDATION naming the limit', async () => {
    const workflow = (items: string) =>
      `{"workflow":{"name":"each","steps":[{"name":"s","type":"transform","for_each":${items},"input":{"v":"{{ item }}"}}],"outputs":{"all":{"value":"{{ steps.s.output }}"}}}}`;
    const start = async (items: string) => {
      const response = await fetch(`${server.url}/workflows/executions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          prefer: 'wait=30',
        },
        body: workflow(items),
      });
      return (await response.json()) as {
        status: string;
        result?: { outputs: object };
        error?: object;
      };
    };
    const within = await start('[1,2,3]');
    expect(within.status).toBe('completed');
    expect(within.result?.outputs).toEqual({ all: [{ v: 1 }, { v: 2 }, { v: 3 }] });
    const over = await start('[1,2,3,4]');
    expect(over.status).toBe('failed');
    expect(over.error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'steps.s.for_each', constraint: 'max_items', limit: 3, actual: 4 },
    });
  });

  it('refuses a WEFT_MAX_FOR_EACH_ITEMS that is not a positive integer', () => {
    expect(() => serverOptionsFromEnv({ WEFT_MAX_FOR_EACH_ITEMS: '0' })).toThrow(
      'WEFT_MAX_FOR_EACH_ITEMS must be a positive integer',
    );
  });
});
