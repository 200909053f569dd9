import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Weft, type WorkflowDefinition } from '@weft/sdk';
import { bearer, kill, startServerProcess, type ServerProcess } from './runtime-support.js';

/**
 * The SDK's registry options and cloud-placed connectors against two real `weft server`
 * processes over loopback: one used only as the plugin registry, one that runs the workflows.
 * Published plugins call a tiny HTTP service in this process.
 */
const work = mkdtempSync(join(tmpdir(), 'weft-registry-'));
let registry: ServerProcess;
let runtime: ServerProcess;
let registryKey: string;
let runtimeKey: string;
let service: Server;
let serviceUrl: string;

const plugin = (slug: string, version = '1.0.0') => ({
  slug,
  version,
  name: slug,
  description: 'Doubles numbers over HTTP.',
  author: 'weft tests',
  homepage: `https://example.com/${slug}`,
  repository: `https://github.com/example/${slug}`,
  license: 'MIT',
  tags: ['test'],
  icon: `https://example.com/${slug}.svg`,
  connector: { kind: 'http', name: slug, namespace: 'tests', version, base_url: serviceUrl },
  actions: [
    {
      name: 'double',
      description: 'Doubles v',
      input_schema: { type: 'object', properties: { v: { type: 'number' } }, required: ['v'] },
      output_schema: { type: 'object', properties: { v: { type: 'number' } } },
      request: { method: 'POST', url: '/double', body: { v: '{{ inputs.v }}' } },
    },
  ],
});

/** Whether the server at `url` has published `slug`. */
async function has(url: string, slug: string): Promise<boolean> {
  const response = await fetch(`${url}/plugins/${slug}`);
  await response.arrayBuffer();
  return response.status === 200;
}

async function actionCalls(): Promise<number> {
  const response = await fetch(`${runtime.url}/usage`, {
    headers: { authorization: `Bearer ${runtimeKey}` },
  });
  return ((await response.json()) as { totals: { action_calls: number } }).totals.action_calls;
}

beforeAll(async () => {
  service = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const v = (JSON.parse(body || '{}') as { v?: number }).v ?? 0;
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ v: v * 2 }));
    });
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  const egress = { WEFT_EGRESS_ALLOWLIST: '127.0.0.0/8' };
  [registry, runtime] = await Promise.all([
    startServerProcess(join(work, 'registry'), egress),
    startServerProcess(join(work, 'runtime'), egress),
  ]);
  registryKey = (await bearer(join(work, 'registry'), 'registry')).slice('Bearer '.length);
  runtimeKey = (await bearer(join(work, 'runtime'), 'runtime')).slice('Bearer '.length);
}, 60_000);

afterAll(async () => {
  await Promise.all([registry, runtime].filter(Boolean).map((server) => kill(server)));
  service.closeAllConnections();
  await new Promise<void>((resolve) => service.close(() => resolve()));
});

describe('registryUrl and registryApiKey', () => {
  it('publishes to the registry while the runs go to the server', async () => {
    const weft = new Weft({
      executionMode: 'hybrid',
      cloudUrl: runtime.url,
      apiKey: runtimeKey,
      registryUrl: registry.url,
      registryApiKey: registryKey,
      inheritEnvironment: false,
      logLevel: 'silent',
    });
    weft.registerConnector(plugin('split'));
    expect(await weft.syncPlugins()).toEqual([
      { slug: 'split', version: '1.0.0', status: 'published' },
    ]);
    expect(await has(registry.url, 'split')).toBe(true);
    expect(await has(runtime.url, 'split')).toBe(false);
    await weft.close();
  });

  it('takes them from WORKFLOW_REGISTRY_URL and WORKFLOW_REGISTRY_API_KEY', async () => {
    const weft = new Weft({
      executionMode: 'cloud',
      cloudUrl: runtime.url,
      apiKey: runtimeKey,
      inheritEnvironment: false,
      environment: { WORKFLOW_REGISTRY_URL: registry.url, WORKFLOW_REGISTRY_API_KEY: registryKey },
      logLevel: 'silent',
    });
    weft.registerConnector(plugin('from-env'));
    expect(await weft.syncPlugins()).toMatchObject([{ slug: 'from-env', status: 'published' }]);
    expect(await has(registry.url, 'from-env')).toBe(true);
    expect(await has(runtime.url, 'from-env')).toBe(false);
    await weft.close();
  });

  it('falls back to cloudUrl and apiKey, and sends the registry key to the registry', async () => {
    const same = new Weft({
      executionMode: 'cloud',
      cloudUrl: runtime.url,
      apiKey: runtimeKey,
      inheritEnvironment: false,
      logLevel: 'silent',
    });
    same.registerConnector(plugin('same-server'));
    expect(await same.syncPlugins()).toMatchObject([{ status: 'published' }]);
    expect(await has(runtime.url, 'same-server')).toBe(true);
    // The server's key is not a key of the registry.
    const wrongKey = new Weft({
      executionMode: 'cloud',
      cloudUrl: runtime.url,
      apiKey: runtimeKey,
      registryUrl: registry.url,
      inheritEnvironment: false,
      logLevel: 'silent',
    });
    wrongKey.registerConnector(plugin('refused'));
    await expect(wrongKey.syncPlugins()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await Promise.all([same.close(), wrongKey.close()]);
  });

  it('refuses a bad registryUrl when the client is made', () => {
    expect(() => new Weft({ registryUrl: 'ftp://registry', inheritEnvironment: false })).toThrow(
      expect.objectContaining({ details: { field: 'registryUrl', constraint: 'url' } }) as Error,
    );
  });
});

describe('registerConnector(definition, { cloud: true })', () => {
  const FLOW = {
    name: 'placed',
    version: '1.0.0',
    inputs: { n: { type: 'number', required: true } },
    steps: [
      {
        name: 'here',
        type: 'action',
        plugin: 'here',
        action: 'inc',
        input: { v: '{{ inputs.n }}' },
      },
      {
        name: 'there',
        type: 'action',
        plugin: 'placed-calc',
        action: 'double',
        input: { v: '{{ steps.here.output.v }}' },
      },
    ],
    outputs: { v: { value: '{{ steps.there.output.v }}' } },
  } as unknown as WorkflowDefinition;

  function hybrid(cloud: boolean) {
    const weft = new Weft({
      executionMode: 'hybrid',
      cloudUrl: runtime.url,
      apiKey: runtimeKey,
      inheritEnvironment: false,
      logLevel: 'silent',
    });
    const local: number[] = [];
    weft.registerHandler('here.inc', (input: { v: number }) => {
      local.push(input.v);
      return { v: input.v + 1 };
    });
    weft.registerConnector(plugin('placed-calc'), { cloud });
    weft.registerConnector(plugin('stays-here'));
    weft.addWorkflows([FLOW]);
    return { weft, local };
  }

  it('syncs only the marked connectors, and runs their steps on the server', async () => {
    const { weft, local } = hybrid(true);
    expect(await weft.syncPlugins()).toEqual([
      { slug: 'placed-calc', version: '1.0.0', status: 'published' },
    ]);
    expect(await has(runtime.url, 'stays-here')).toBe(false);
    const before = await actionCalls();
    const result = await weft.execute('placed', { n: 4 });
    expect(result).toMatchObject({ status: 'completed', outputs: { v: 10 } });
    expect(local).toEqual([4]);
    expect((await actionCalls()) - before).toBe(1);
    // The step's `execution` field and the run's override still win over the mark.
    const overridden = await weft.execute(
      'placed',
      { n: 1 },
      { execution: { 'placed-calc': 'local' } },
    );
    expect(overridden.outputs).toEqual({ v: 4 });
    expect((await actionCalls()) - before).toBe(1);
    await weft.close();
  });

  it('without a mark: syncs every loaded connector and runs the steps here', async () => {
    const { weft, local } = hybrid(false);
    const report = await weft.syncPlugins();
    expect(report.map((r) => r.slug)).toEqual(['placed-calc', 'stays-here']);
    expect(report[1]).toMatchObject({ status: 'published' });
    const before = await actionCalls();
    const result = await weft.execute('placed', { n: 2 });
    expect(result).toMatchObject({ status: 'completed', outputs: { v: 6 } });
    expect(local).toEqual([2]);
    expect(await actionCalls()).toBe(before);
    await weft.close();
  });
});
