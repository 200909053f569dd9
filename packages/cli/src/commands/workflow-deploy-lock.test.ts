import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalKey, startServer, type RunningServer } from '@weft/server';
import { dropTestSchema, testSchemaName } from '@weft/store';
import { run } from '../test-support.js';

const dir = mkdtempSync(join(tmpdir(), 'weft-deploy-lock-'));
const plugins = join(dir, 'plugins');
let server: RunningServer;
let key: string;

/** A plugin of the registry that is also a shell connector `tools` at `version`. */
function tools(version: string, description = 'Tools for tests.'): string {
  return JSON.stringify({
    slug: 'tools',
    version,
    name: 'Tools',
    description,
    author: 'Acme Corp',
    homepage: 'https://example.com/tools',
    repository: 'https://github.com/acme/tools',
    license: 'MIT',
    tags: ['test'],
    icon: 'https://example.com/tools.svg',
    connector: { type: 'connector', kind: 'shell', name: 'tools', namespace: 'acme', version },
    actions: [
      {
        name: 'get',
        description: 'Gets one',
        command: ['echo', '{}'],
        input_schema: { type: 'object', properties: {} },
        output_schema: { type: 'object', properties: {} },
      },
    ],
  });
}

const FLOW = `workflows:
  - name: nightly
    version: 1.0.0
    steps:
      - { name: a, plugin: tools, action: get }
`;
const flow = join(dir, 'flow.yaml');
const sha = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;
const server_ = () => ['--server', server.url, '--api-key', key];
const deploy = (...args: string[]) =>
  run('workflow', 'deploy', flow, '--plugins', plugins, ...server_(), ...args);
const detail = async (name: string) =>
  fetch(`${server.url}/workflows/${name}`, { headers: { authorization: `Bearer ${key}` } });
const put = (name: string, body: unknown) =>
  fetch(`${server.url}/workflows/${name}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const databaseUrl = process.env['WEFT_TEST_DATABASE_URL'];
const schema = testSchemaName();

describe.each([
  { name: 'SQLite', kind: 'sqlite' as const, skip: false },
  {
    name: 'PostgreSQL (set WEFT_TEST_DATABASE_URL)',
    kind: 'postgres' as const,
    skip: !databaseUrl,
  },
])('a weft.lock deployed to a server on $name', ({ kind, skip }) => {
  beforeAll(async () => {
    if (skip) return;
    const options = {
      dataDir: join(dir, kind),
      logLevel: 'silent' as const,
      ...(kind === 'postgres' ? { databaseUrl, databaseSchema: schema } : {}),
    };
    server = await startServer({ port: 0, ...options });
    key = (await createLocalKey(options, { name: 'acme' })).key;
    mkdirSync(plugins, { recursive: true });
    writeFileSync(join(dir, 'tools-1.0.0.json'), tools('1.0.0'));
    const published = await run(
      'plugin',
      'publish',
      join(dir, 'tools-1.0.0.json'),
      '--registry',
      server.url,
      '--api-key',
      key,
    );
    expect(published.code, published.err).toBe(0);
    writeFileSync(flow, FLOW);
    rmSync(join(dir, 'weft.lock'), { force: true });
  });
  afterAll(async () => {
    if (skip) return;
    await server.close();
    if (kind === 'postgres') {
      await dropTestSchema(databaseUrl!, schema);
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  describe('weft workflow deploy with a weft.lock', () => {
    it.skipIf(skip)(
      'sends the lock, the server checks it against its registry, and GET /workflows/{name} shows it',
      async () => {
        const installed = await run(
          'plugin',
          'install',
          'tools@1.0.0',
          '--save',
          '--plugins-dir',
          plugins,
          '--registry',
          server.url,
        );
        expect(installed.code, installed.err).toBe(0);
        expect((await run('workflow', 'lock', flow, '--plugins', plugins)).code).toBe(0);
        const deployed = await deploy();
        expect(deployed.err).toBe('');
        expect(deployed.code).toBe(0);
        const body = (await (await detail('nightly')).json()) as Record<string, unknown>;
        expect(body['lock']).toEqual({
          version: '1.0.0',
          plugins: {
            tools: {
              version: '1.0.0',
              checksum: sha(tools('1.0.0')),
              // Installed from the registry, unchanged: the registry's checksum and address.
              source: server.url,
            },
          },
        });
        // The lock is not part of the definition.
        expect(body['definition']).not.toHaveProperty('lock');
      },
    );

    it.skipIf(skip)(
      'refuses (409) a lock whose checksum is not the registry’s, and deploys nothing',
      async () => {
        // Same version, other bytes: locally consistent, but not what the server's registry holds.
        const local = tools('1.0.0', 'Tools for tests, changed here.');
        writeFileSync(join(plugins, 'tools.yaml'), local);
        expect(
          (await run('workflow', 'lock', flow, '--plugins', plugins, '--update', 'tools')).code,
        ).toBe(0);
        writeFileSync(flow, FLOW.replace('version: 1.0.0', 'version: 1.0.1'));
        expect((await run('workflow', 'lock', flow, '--plugins', plugins)).code).toBe(0);
        const refused = await deploy();
        expect(refused.code).toBe(2);
        expect(refused.err).toContain('[CONFLICT]');
        expect(refused.err).toContain(
          `plugin tools: locked 1.0.0 (${sha(local)}), found 1.0.0 (${sha(tools('1.0.0'))})`,
        );
        const body = (await (await detail('nightly')).json()) as {
          version: string;
          revision: number;
        };
        expect(body).toMatchObject({ version: '1.0.0', revision: 1 });
        writeFileSync(flow, FLOW);
      },
    );

    it.skipIf(skip)('checks a locked agent against the one the registry publishes', async () => {
      const agentText = (description: string) => `agent:
  namespace: acme
  name: helper
  version: 2.0.0
  description: ${description}
  model: openai-compatible:test
  base_url: http://127.0.0.1:9/v1
  instructions: Help.
`;
      const agents = join(dir, 'agents');
      mkdirSync(agents, { recursive: true });
      writeFileSync(join(dir, 'helper.yaml'), agentText('Helps'));
      const published = await run(
        'plugin',
        'publish',
        join(dir, 'helper.yaml'),
        '--registry',
        server.url,
        '--api-key',
        key,
      );
      expect(published.code, published.err).toBe(0);
      const ask = join(dir, 'ask.yaml');
      writeFileSync(
        ask,
        `workflows:\n  - name: ask\n    steps:\n      - { name: q, type: agent, agent: "agent:acme/helper@^2.0.0", input: { question: hi } }\n`,
      );
      const deployAsk = () =>
        run('workflow', 'deploy', ask, '--plugins', plugins, '--agents', agents, ...server_());
      writeFileSync(join(agents, 'helper.yaml'), agentText('Helps'));
      expect((await run('workflow', 'lock', ask, '--agents', agents)).code).toBe(0);
      const deployed = await deployAsk();
      expect(deployed.code, deployed.err).toBe(0);
      const body = (await (await detail('ask')).json()) as { lock: { agents: object } };
      expect(body.lock.agents).toEqual({
        'agent:acme/helper@^2.0.0': {
          version: '2.0.0',
          checksum: sha(agentText('Helps')),
          source: 'agents/helper.yaml',
        },
      });
      // Same version, other bytes here: locked with --update, refused by the server.
      writeFileSync(join(agents, 'helper.yaml'), agentText('Helps, changed here'));
      expect(
        (await run('workflow', 'lock', ask, '--agents', agents, '--update', 'acme/helper')).code,
      ).toBe(0);
      const refused = await deployAsk();
      expect(refused.code).toBe(2);
      expect(refused.err).toContain(
        `agent agent:acme/helper@^2.0.0: locked 2.0.0 (${sha(agentText('Helps, changed here'))}), found 2.0.0 (${sha(agentText('Helps'))})`,
      );
    });

    it.skipIf(skip)(
      '--frozen-lockfile refuses to deploy a workflow that is not locked',
      async () => {
        writeFileSync(
          flow,
          `${FLOW}  - name: other\n    steps:\n      - { name: t, type: transform, input: { ok: true } }\n`,
        );
        const refused = await deploy('--frozen-lockfile');
        expect(refused.code).toBe(2);
        expect(refused.err).toContain('workflow other is not in the lock');
        expect((await detail('other')).status).toBe(404);
        writeFileSync(flow, FLOW);
      },
    );
  });

  describe('PUT /workflows/{name} with a lock', () => {
    const definition = {
      name: 'hostile',
      steps: [{ name: 't', type: 'transform', input: { ok: true } }],
    };
    const checksum = `sha256:${'a'.repeat(64)}`;
    const cases: [string, unknown, string, string][] = [
      ['not a map', 'yes', 'lock', 'type'],
      ['an unknown key', { version: '1.0.0', extra: 1 }, 'lock.extra', 'additionalProperties'],
      [
        'a bad checksum',
        { version: '1.0.0', plugins: { tools: { version: '1.0.0', checksum: 'md5:1' } } },
        'lock.plugins.tools.checksum',
        'pattern',
      ],
      [
        'too many entries',
        {
          version: '1.0.0',
          plugins: Object.fromEntries(
            Array.from({ length: 1001 }, (_, i) => [`p${i}`, { version: '1.0.0', checksum }]),
          ),
        },
        'lock.plugins',
        'max_items',
      ],
      [
        'a version too long',
        { version: '1.0.0', agents: { 'agent:a/b@1': { version: '1'.repeat(65), checksum } } },
        'lock.agents["agent:a/b@1"].version',
        'length',
      ],
    ];
    it.skipIf(skip).each(cases)(
      'refuses %s with 400 naming the field and rule',
      async (_what, lock, field, rule) => {
        const response = await put('hostile', { ...definition, lock });
        expect(response.status).toBe(400);
        const error = (await response.json()) as { code: string; details: Record<string, unknown> };
        expect(error.code).toBe('VALIDATION');
        expect(error.details).toMatchObject({ field, constraint: rule });
        expect((await detail('hostile')).status).toBe(404);
      },
    );

    it.skipIf(skip)(
      'refuses (409) a locked plugin the registry does not hold, and a lock of another version (400)',
      async () => {
        const unknown = await put('hostile', {
          ...definition,
          lock: { version: '1.0.0', plugins: { nowhere: { version: '1.0.0', checksum } } },
        });
        expect(unknown.status).toBe(409);
        const error = (await unknown.json()) as { details: { mismatches: unknown[] } };
        expect(error.details.mismatches).toEqual([
          expect.objectContaining({ reference: 'nowhere', reason: 'not_in_registry' }),
        ]);
        const other = await put('hostile', { ...definition, lock: { version: '2.0.0' } });
        expect(other.status).toBe(400);
        expect((await detail('hostile')).status).toBe(404);
      },
    );
  });
});
