import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalKey } from './local-keys.js';
import { startServer, type RunningServer } from './start.js';
import { pluginDefinition } from './test-support/harness.js';

// Over real HTTP against `weft server` on SQLite: unpublishing an agent version that a deployed
// workflow's agent step resolves to is refused as for a plugin an active workflow uses.
const dataDir = mkdtempSync(join(tmpdir(), 'weft-agent-usage-'));
let server: RunningServer;
let key: string;

beforeAll(async () => {
  server = await startServer({ port: 0, host: '127.0.0.1', dataDir, logLevel: 'silent' });
  key = (await createLocalKey({ dataDir }, { name: 'acme' })).key;
}, 30_000);

afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

const agent = (name: string, version: string) => ({
  agent: {
    namespace: 'acme',
    name,
    version,
    description: 'Answers tickets',
    model: 'openai-compatible:m',
    base_url: 'http://127.0.0.1:9/v1',
  },
});

/** A workflow of one agent step, or of that step inside a parallel block. */
const workflow = (name: string, ref: string, parallel = false) => {
  const step = { name: 'ask', type: 'agent', agent: ref, input: { prompt: 'hi' } };
  return {
    name,
    steps: parallel ? [{ name: 'both', type: 'parallel', parallel: [step] }] : [step],
  };
};

async function publishAgent(name: string, ...versions: string[]) {
  const [first, ...rest] = versions;
  const created = await call('POST', '/plugins', agent(name, first!));
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  for (const version of rest) {
    const updated = await call('PUT', `/plugins/acme-${name}`, agent(name, version));
    expect(updated.status, JSON.stringify(updated.json)).toBe(200);
  }
  for (const version of versions) {
    const deprecated = await call('POST', `/plugins/acme-${name}/${version}/deprecate`, {
      reason: 'retired',
    });
    expect(deprecated.status).toBe(200);
  }
}

describe('unpublishing an agent that deployed workflows use (SQLite, over HTTP)', () => {
  it('refuses the version a range resolves to (the highest match) and a pinned one, as for plugins', async () => {
    await publishAgent('helper', '1.0.0', '1.1.0', '2.0.0');
    for (const [name, ref, parallel] of [
      ['ranged', 'agent:acme/helper@^1', false],
      ['pinned', 'agent:acme/helper@1.0.0', true],
    ] as const) {
      const deployed = await call('PUT', `/workflows/${name}`, workflow(name, ref, parallel));
      expect(deployed.status, JSON.stringify(deployed.json)).toBe(201);
    }

    // ^1 resolves to 1.1.0 (not 2.0.0, not 1.0.0); 1.0.0 is pinned inside a parallel block.
    const ranged = await call('DELETE', '/plugins/acme-helper/1.1.0');
    expect(ranged.status).toBe(409);
    expect(ranged.json).toMatchObject({
      status: 'error',
      code: 'CONFLICT',
      details: { slug: 'acme-helper', version: '1.1.0', unmet: ['in_use'], workflows: ['ranged'] },
    });
    const pinned = await call('DELETE', '/plugins/acme-helper/1.0.0');
    expect(pinned.json).toMatchObject({
      code: 'CONFLICT',
      details: { unmet: ['in_use'], workflows: ['pinned'] },
    });
    expect((await call('DELETE', '/plugins/acme-helper/2.0.0')).status).toBe(200);

    // The same refusal as a plugin that an active workflow uses.
    expect((await call('POST', '/plugins', pluginDefinition('pager'))).status).toBe(201);
    await call('POST', '/plugins/pager/1.0.0/deprecate', { reason: 'retired' });
    const pages = { name: 'pages', steps: [{ name: 'p', plugin: 'pager', action: 'send' }] };
    expect((await call('PUT', '/workflows/pages', pages)).status).toBe(201);
    const plugin = await call('DELETE', '/plugins/pager/1.0.0');
    expect(Object.keys(plugin.json).sort()).toEqual(Object.keys(ranged.json).sort());
    expect(Object.keys(plugin.json['details']!).sort()).toEqual(
      Object.keys(ranged.json['details']!).sort(),
    );

    // Once nothing resolves to it, the version goes.
    expect((await call('DELETE', '/workflows/pinned')).status).toBe(200);
    const free = await call('DELETE', '/plugins/acme-helper/1.0.0');
    expect(free.status, JSON.stringify(free.json)).toBe(200);
    expect(free.json).toMatchObject({ status: 'removed', slug: 'acme-helper', version: '1.0.0' });
    expect((await call('DELETE', '/plugins/acme-helper/1.1.0')).status).toBe(409);
  });

  it('does not count references to another agent, nor a range that resolves elsewhere', async () => {
    await publishAgent('other', '1.0.0', '1.5.0');
    const deployed = await call(
      'PUT',
      '/workflows/elsewhere',
      workflow('elsewhere', 'agent:acme/other@~1.5.0'),
    );
    expect(deployed.status, JSON.stringify(deployed.json)).toBe(201);
    expect((await call('DELETE', '/plugins/acme-other/1.0.0')).status).toBe(200);
    expect((await call('DELETE', '/plugins/acme-other/1.5.0')).json).toMatchObject({
      details: { workflows: ['elsewhere'] },
    });
  });
});
