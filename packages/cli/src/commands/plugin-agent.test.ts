import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentRef, loadAgentDir } from '@weft/agents';
import { ScriptedModelServer } from '@weft/agents/testing';
import { createLocalKey, startServer, type RunningServer } from '@weft/server';
import { run } from '../test-support.js';

/**
 * Agent definitions published to the registry (kind `agent`) over real HTTP: `weft plugin
 * publish`, search by kind, detail and checksum, deprecation, then a run on the server whose
 * agent step resolves the published agent and talks to a scripted OpenAI-compatible server.
 */
const dir = mkdtempSync(join(tmpdir(), 'weft-agent-registry-'));
const MODEL_KEY = 'sk-registry-agent-7';
let model: ScriptedModelServer;
let server: RunningServer;
let key: string;

const agentYaml = (version: string, instructions: string) =>
  `# a published agent\nagent:\n  namespace: acme\n  name: helper\n  version: ${version}\n  description: Answers questions about orders\n  model: openai-compatible:scripted\n  base_url: ${model.url}\n  api_key_secret: MODEL_KEY\n  instructions: ${instructions}\n`;

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

const registry = () => ['--registry', server.url, '--api-key', key];
const get = (path: string) => fetch(`${server.url}${path}`);

beforeAll(async () => {
  // The model answers with the instructions it was given: which version ran shows.
  model = await new ScriptedModelServer((body) => {
    const system = (body['messages'] as { role: string; content: string }[]).find(
      (m) => m.role === 'system',
    );
    return {
      text: `instructions: ${system?.content ?? 'none'}`,
      usage: { prompt_tokens: 12, completion_tokens: 3 },
    };
  }).start();
  const dataDir = join(dir, 'data');
  const agentsDir = join(dir, 'local-agents');
  mkdirSync(agentsDir);
  server = await startServer({
    port: 0,
    host: '127.0.0.1',
    dataDir,
    logLevel: 'silent',
    agentsDir,
    runtimeSecrets: { MODEL_KEY },
    // Published agents read only the secrets the operator allows them.
    publishedAgentSecrets: ['MODEL_KEY'],
    // Published agents call their models under the egress policy of published plugins.
    egressAllowlist: ['127.0.0.1/32'],
  });
  key = (await createLocalKey({ dataDir }, { name: 'acme', owner: 'acme' })).key;
}, 30_000);

afterAll(async () => {
  await server?.close();
  await model?.close();
});

describe('agents published to the registry', () => {
  it('publish, search by kind, detail, checksum, deprecate, then run on the server', async () => {
    const first = write('helper-1.yaml', agentYaml('1.0.0', 'first'));
    const published = await run('plugin', 'publish', first, ...registry());
    expect(published.err).toBe('');
    expect(published.code).toBe(0);
    expect(published.out).toContain('acme-helper@1.0.0 published');
    const second = write('helper-1.1.yaml', agentYaml('1.1.0', 'second'));
    const updated = await run('plugin', 'publish', second, '--update', ...registry());
    expect(updated.code, updated.err).toBe(0);
    expect(updated.out).toContain('acme-helper@1.1.0 updated (previous 1.0.0)');

    const agents = await (await get('/plugins/search?kind=agent')).json();
    expect(agents).toMatchObject({
      total: 1,
      results: [{ slug: 'acme-helper', kind: 'agent', name: 'acme/helper', version: '1.1.0' }],
    });
    expect(await (await get('/plugins/search?q=orders&kind=plugin')).json()).toMatchObject({
      total: 0,
    });
    const bad = await get('/plugins/search?kind=robot');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'kind', constraint: 'enum' },
    });

    const detail = (await (await get('/plugins/acme-helper?version=1.0.0')).json()) as {
      checksum: string;
    };
    expect(detail).toMatchObject({
      slug: 'acme-helper',
      kind: 'agent',
      ref: 'agent:acme/helper',
      version: '1.0.0',
      versions: ['1.1.0', '1.0.0'],
      actions: [],
      owner: 'acme',
      agent: { namespace: 'acme', name: 'helper', model: 'openai-compatible:scripted' },
    });
    const bytes = readFileSync(first);
    expect(detail.checksum).toBe(`sha256:${createHash('sha256').update(bytes).digest('hex')}`);
    const schema = await get(`/plugins/acme-helper/1.0.0/schema`);
    expect(schema.headers.get('etag')).toBe(`"${detail.checksum}"`);
    expect(Buffer.from(await schema.arrayBuffer())).toEqual(bytes);

    const deprecated = await run(
      'plugin',
      'deprecate',
      'acme-helper@1.1.0',
      '--reason',
      'use 1.0.0',
      ...registry(),
    );
    expect(deprecated.code, deprecated.err).toBe(0);
    expect(await (await get('/plugins/acme-helper?version=1.1.0')).json()).toMatchObject({
      status: 'deprecated',
      deprecation: { reason: 'use 1.0.0' },
    });

    // Deprecated versions still resolve, as for plugins: ^1 picks 1.1.0; a pin picks 1.0.0.
    const flow = write(
      'ask.yaml',
      `workflows:\n  - name: ask\n    steps:\n      - { name: latest, type: agent, agent: 'agent:acme/helper@^1', input: { prompt: Where is my order? } }\n      - { name: pinned, type: agent, agent: 'agent:acme/helper@1.0.0', input: { prompt: And now? } }\n`,
    );
    const ran = await run(
      'workflow',
      'run',
      flow,
      '--cloud',
      '--server',
      server.url,
      '--api-key',
      key,
      '-o',
      'json',
    );
    expect(ran.code, ran.err + ran.out).toBe(0);
    const result = JSON.parse(ran.out);
    expect(result.status).toBe('completed');
    expect(result.steps.latest.output).toMatchObject({
      text: 'instructions: second',
      usage: { input_tokens: 12, output_tokens: 3, total_tokens: 15 },
    });
    expect(result.steps.pinned.output.text).toBe('instructions: first');
    expect(model.requests[0]!.headers['authorization']).toBe(`Bearer ${MODEL_KEY}`);

    // Installed for local runs: into the agents directory, checksum verified, and it loads.
    const agentsDir = join(dir, 'installed-agents');
    const installed = await run(
      'plugin',
      'install',
      'acme-helper@1.0.0',
      '--save',
      '--agents-dir',
      agentsDir,
      ...registry(),
    );
    expect(installed.code, installed.err).toBe(0);
    expect(readFileSync(join(agentsDir, 'acme-helper.yaml'))).toEqual(bytes);
    expect((await loadAgentDir(agentsDir)).map(agentRef)).toEqual(['agent:acme/helper@1.0.0']);

    const searched = await run('plugin', 'search', '--kind', 'agent', '-o', 'json', ...registry());
    expect(JSON.parse(searched.out).results.map((r: { slug: string }) => r.slug)).toEqual([
      'acme-helper',
    ]);
  });

  it('refuses a malformed agent with 400 VALIDATION, field, constraint and line, and stores nothing', async () => {
    const before = await (await get('/plugins/search?kind=agent')).json();
    const response = await fetch(`${server.url}/plugins`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/yaml' },
      body: 'agent:\n  namespace: acme\n  name: broken\n  version: 1.0.0\n  model: gpt-4\n',
    });
    expect(response.status).toBe(400);
    const error = await response.json();
    expect(error).toMatchObject({
      code: 'VALIDATION',
      details: {
        field: 'agent.model',
        constraint: expect.any(String),
        problems: [expect.objectContaining({ field: 'agent.model', line: 5 })],
      },
    });
    expect((await get('/plugins/acme-broken')).status).toBe(404);
    expect(await (await get('/plugins/search?kind=agent')).json()).toEqual(before);

    // The CLI runs the same check before sending anything.
    const file = write('broken.yaml', 'agent:\n  namespace: acme\n  name: broken\n  version: 1\n');
    const published = await run('plugin', 'publish', file, ...registry());
    expect(published.code).not.toBe(0);
    expect(published.err).toMatch(/broken\.yaml:\d+:\d+: error: agent/);
    expect((await get('/plugins/acme-broken')).status).toBe(404);
  });

  it('calls the model of a published agent only where the egress policy allows', async () => {
    const outside = agentYaml('1.0.0', 'x')
      .replace('name: helper', 'name: prober')
      .replace('http://127.0.0.1:', 'http://127.0.0.2:');
    expect(
      (await run('plugin', 'publish', write('prober.yaml', outside), ...registry())).code,
    ).toBe(0);
    const seen = model.requests.length;
    const workflow = {
      name: 'probe',
      steps: [{ name: 'p', type: 'agent', agent: 'agent:acme/prober@1', input: { prompt: 'hi' } }],
    };
    const answer = await fetch(`${server.url}/workflows/executions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        prefer: 'wait=20',
      },
      body: JSON.stringify({ workflow }),
    });
    const record = (await answer.json()) as { status: string };
    expect(record.status, JSON.stringify(record)).toBe('failed');
    expect(JSON.stringify(record)).toContain('is refused');
    expect(model.requests.length).toBe(seen);
  });

  it('keeps kinds apart: an agent is no version of a plugin, and is not an action to run', async () => {
    const plugin = write(
      'acme-tools.json',
      JSON.stringify({
        slug: 'acme-tools',
        version: '1.0.0',
        name: 'Tools',
        description: 'Tools',
        author: 'acme',
        homepage: 'https://example.com',
        repository: 'https://example.com/r',
        license: 'MIT',
        icon: 'https://example.com/i.svg',
        tags: [],
        actions: [{ name: 'run', description: 'Runs' }],
      }),
    );
    expect((await run('plugin', 'publish', plugin, ...registry())).code).toBe(0);
    const agent = write(
      'acme-tools-agent.yaml',
      agentYaml('2.0.0', 'x').replace('name: helper', 'name: tools'),
    );
    const refused = await run('plugin', 'publish', agent, '--update', ...registry());
    expect(refused.code).not.toBe(0);
    expect(refused.err).toContain('holds a plugin definition');
    // A published agent is not a plugin a step can run: refused before the run starts.
    const workflow = {
      name: 'misuse',
      steps: [{ name: 'a', plugin: 'acme-helper', action: 'run', input: {} }],
    };
    const started = await fetch(`${server.url}/workflows/executions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        prefer: 'wait=10',
      },
      body: JSON.stringify({ workflow }),
    });
    expect(started.status).toBe(400);
    expect(await started.json()).toMatchObject({
      code: 'VALIDATION',
      details: { constraint: 'plugins_available', unavailable: ['acme-helper'] },
    });
  });
});
