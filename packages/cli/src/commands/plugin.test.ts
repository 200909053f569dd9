import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as openpgp from 'openpgp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '@weft/server';
import { run } from '../test-support.js';

const examples = fileURLToPath(new URL('../../../../examples/plugins/', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'weft-cli-plugin-'));
let server: RunningServer;
let key: string;
const registry = () => ['--registry', server.url, '--api-key', key];

beforeAll(async () => {
  server = await startServer({ port: 0, dataDir: join(work, 'data'), logLevel: 'silent' });
  const created = await run(
    'auth',
    'create-key',
    '--name',
    'Acme Corp',
    '--owner',
    'acme',
    '--data-dir',
    join(work, 'data'),
    '--output',
    'json',
  );
  key = JSON.parse(created.out).key;
});
afterAll(async () => server.close());

describe('weft auth create-key', () => {
  it('prints the new key as the last line of stdout, once', async () => {
    const result = await run(
      'auth',
      'create-key',
      '--name',
      'ci',
      '--data-dir',
      join(work, 'data'),
    );
    expect(result.code).toBe(0);
    expect(result.out.trimEnd().split('\n').at(-1)).toMatch(
      /^weft_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/,
    );
    expect(result.err).toContain('shown once');
  });

  it('prints {name, owner, key, roles, permissions, created_at} with --output json', async () => {
    const result = await run(
      'auth',
      'create-key',
      '--name',
      'bot',
      '--owner',
      'acme',
      '--data-dir',
      join(work, 'data'),
      '--output',
      'json',
    );
    expect(Object.keys(JSON.parse(result.out)).sort()).toEqual([
      'created_at',
      'key',
      'name',
      'owner',
      'permissions',
      'roles',
    ]);
  });

  it('refuses to create a key on a server without an admin key', async () => {
    const result = await run('auth', 'create-key', '--name', 'x', ...registry());
    expect(result.code).toBe(2);
    expect(result.err).toContain('FORBIDDEN');
  });
});

describe('weft plugin', () => {
  it('validates an example and reports every problem of a broken file with exit 2', async () => {
    const ok = await run('plugin', 'validate', join(examples, 'slack.yaml'));
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/^ok .*slack\.yaml: slack@\d+\.\d+\.\d+, 2 actions/);
    const broken = join(work, 'broken.yaml');
    writeFileSync(broken, 'slug: Bad/Slug\nversion: one\nslug: again\n');
    const bad = await run('plugin', 'validate', broken);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain(`${broken}:3:1: error:`);
  });

  it('publishes with --dry-run (nothing stored), then for real, then refuses a second POST', async () => {
    const file = join(examples, 'http.yaml');
    const dry = await run('plugin', 'publish', file, '--dry-run', ...registry());
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('would be published');
    expect((await run('plugin', 'search', 'http', ...registry(), '-o', 'json')).out).toContain(
      '"total": 0',
    );
    const real = await run('plugin', 'publish', file, ...registry());
    expect(real.code).toBe(0);
    expect(real.out).toMatch(
      /http@\S+ published\n {2}url: http:\/\/127\.0\.0\.1:\d+\/plugins\/http\n {2}checksum: sha256:[0-9a-f]{64}/,
    );
    const again = await run('plugin', 'publish', file, ...registry());
    expect(again.code).toBe(2);
    expect(again.err).toContain('[CONFLICT]');
  });

  it('publishes an update with --update and refuses one without a key', async () => {
    const source = readFileSync(join(examples, 'github.yaml'), 'utf8');
    const file = join(work, 'github.yaml');
    writeFileSync(file, source);
    expect((await run('plugin', 'publish', file, ...registry())).code).toBe(0);
    writeFileSync(
      file,
      source
        .replaceAll(/^version: .*$/gm, 'version: 9.0.0')
        .replace(/(connector:[\s\S]*?version: )\S+/, '$19.0.0'),
    );
    const update = await run('plugin', 'publish', file, '--update', ...registry());
    expect(update.err).toBe('');
    expect(update.out).toMatch(/github@9\.0\.0 updated \(previous \S+\)/);
    const anonymous = await run('plugin', 'publish', file, '--registry', server.url);
    expect(anonymous.code).toBe(2);
  });

  it('installs with --save into ./plugins, lists it as from the registry, then as local once edited', async () => {
    await run('plugin', 'publish', join(examples, 'postgres.yaml'), ...registry());
    const dir = join(work, 'project', 'plugins');
    const install = await run(
      'plugin',
      'install',
      'postgres',
      '--save',
      '--plugins-dir',
      dir,
      ...registry(),
    );
    expect(install.code).toBe(0);
    expect(readFileSync(join(dir, 'postgres.yaml'), 'utf8')).toBe(
      readFileSync(join(examples, 'postgres.yaml'), 'utf8'),
    );
    const listed = await run('plugin', 'list', '--plugins-dir', dir, '-o', 'json');
    expect(JSON.parse(listed.out)).toEqual([
      expect.objectContaining({ slug: 'postgres', source: server.url }),
    ]);
    writeFileSync(
      join(dir, 'postgres.yaml'),
      `${readFileSync(join(dir, 'postgres.yaml'), 'utf8')}# edited\n`,
    );
    const edited = await run('plugin', 'list', '--plugins-dir', dir);
    expect(edited.out).toMatch(/postgres\s+\S+\s+local\s+/);
  });

  it('keeps its install records out of the connectors: .weft/installed.json, moved from the old file', async () => {
    await run('plugin', 'publish', join(examples, 'openai.yaml'), ...registry());
    const dir = join(work, 'migrated', 'plugins');
    mkdirSync(dir, { recursive: true });
    const old = { postgres: { version: '0.4.0', registry: server.url, checksum: 'sha256:0' } };
    writeFileSync(join(dir, '.weft-plugins.json'), JSON.stringify(old));
    const install = await run(
      'plugin',
      'install',
      'openai',
      '--save',
      '--plugins-dir',
      dir,
      ...registry(),
    );
    expect(install.code).toBe(0);
    expect(existsSync(join(dir, '.weft-plugins.json'))).toBe(false);
    const records = JSON.parse(readFileSync(join(dir, '.weft', 'installed.json'), 'utf8'));
    expect(Object.keys(records).sort()).toEqual(['openai', 'postgres']);
    // The directory loads as connectors: only openai.yaml is read.
    const workflow = join(work, 'migrated', 'notify.yaml');
    writeFileSync(
      workflow,
      'workflows:\n  - name: notify\n    steps:\n      - id: say\n        type: transform\n        input: { ok: true }\n',
    );
    const ran = await run('workflow', 'run', workflow, '--plugins', dir);
    expect(ran.err).toBe('');
    expect(ran.code).toBe(0);
  });

  it('checks a connector block as local runs load it: the same errors from validate and --plugins', async () => {
    const file = join(work, 'plugins-typo', 'typo.yaml');
    mkdirSync(join(work, 'plugins-typo'), { recursive: true });
    writeFileSync(
      file,
      readFileSync(join(examples, 'http.yaml'), 'utf8').replace(
        '{{ inputs.url }}',
        '{{ input.url }}',
      ),
    );
    const validated = await run('plugin', 'validate', file);
    expect(validated.code).toBe(2);
    expect(validated.err).toMatch(
      /typo\.yaml:\d+:\d+: error: actions\[0\]\.request\.url: .*"input"/,
    );
    const workflow = join(work, 'notify.yaml');
    writeFileSync(
      workflow,
      'workflows:\n  - name: n\n    steps:\n      - id: s\n        type: transform\n        input: { ok: true }\n',
    );
    const ran = await run('workflow', 'run', workflow, '--plugins', join(work, 'plugins-typo'));
    expect(ran.code).toBe(2);
    const line = validated.err.split('\n')[0]!;
    expect(ran.err).toContain(line.slice(line.indexOf(': error: ')));
  });

  it.each(['github', 'http', 'openai', 'postgres', 'slack'])(
    'examples/plugins/%s.yaml passes validate and loads with --plugins',
    async (slug) => {
      const validated = await run('plugin', 'validate', join(examples, `${slug}.yaml`));
      expect(validated.err).toBe('');
      const dir = join(work, `example-${slug}`);
      mkdirSync(dir);
      writeFileSync(join(dir, `${slug}.yaml`), readFileSync(join(examples, `${slug}.yaml`)));
      const workflow = join(dir, '..', `example-${slug}.yaml`);
      writeFileSync(
        workflow,
        'workflows:\n  - name: n\n    steps:\n      - id: s\n        type: transform\n        input: { ok: true }\n',
      );
      const ran = await run('workflow', 'run', workflow, '--plugins', dir);
      expect(ran.err).toBe('');
      expect(ran.code).toBe(0);
    },
  );

  it.each(['../etc', 'Slack', 'a/b'])('refuses to install the slug %j', async (slug) => {
    const result = await run(
      'plugin',
      'install',
      slug,
      '--save',
      '--plugins-dir',
      join(work, 'evil'),
      ...registry(),
    );
    expect(result.code).not.toBe(0);
  });

  it('verifies the checksum, and a signature against a keyring, exiting 1 on a mismatch', async () => {
    const { publicKey, privateKey } = await openpgp.generateKey({
      type: 'curve25519',
      userIDs: [{ name: 'Acme' }],
    });
    const keyring = join(work, 'acme.asc');
    writeFileSync(keyring, publicKey);
    expect((await run('auth', 'add-signing-key', keyring, ...registry())).code).toBe(0);
    const { signDefinition, parseDefinitionBytes } = await import('@weft/server');
    const parsed = parseDefinitionBytes(readFileSync(join(examples, 'slack.yaml')), 'yaml');
    if (!parsed.ok) throw new Error('example does not parse');
    const signed = await signDefinition(parsed.value as never, privateKey);
    const file = join(work, 'slack-signed.json');
    writeFileSync(file, JSON.stringify(signed, null, 2));
    expect((await run('plugin', 'publish', file, ...registry())).code).toBe(0);
    const version = (signed as { version: string }).version;
    const plain = await run('plugin', 'verify', `slack@${version}`, ...registry());
    expect(plain.code).toBe(0);
    expect(plain.out).toContain('ok checksum sha256:');
    const withKeyring = await run(
      'plugin',
      'verify',
      `slack@${version}`,
      '--check-signature',
      '--keyring',
      keyring,
      ...registry(),
    );
    expect(withKeyring.out).toMatch(/ok signature by key [0-9A-F]{16}/);
    const fromRegistry = await run(
      'plugin',
      'verify',
      `slack@${version}`,
      '--check-signature',
      ...registry(),
    );
    expect(fromRegistry.code).toBe(0);
    const other = await openpgp.generateKey({
      type: 'curve25519',
      userIDs: [{ name: 'Eve' }],
    });
    writeFileSync(keyring, other.publicKey);
    const wrong = await run(
      'plugin',
      'verify',
      `slack@${version}`,
      '--check-signature',
      '--keyring',
      keyring,
      ...registry(),
    );
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain('FAIL signature');
    const unsigned = await run('plugin', 'verify', 'http', '--check-signature', ...registry());
    expect(unsigned.code).toBe(1);
  });

  it('deprecates and unpublishes a version', async () => {
    await run('plugin', 'publish', join(examples, 'openai.yaml'), ...registry());
    const detail = (await (await fetch(`${server.url}/plugins/openai`)).json()) as {
      version: string;
    };
    const notYet = await run('plugin', 'unpublish', `openai@${detail.version}`, ...registry());
    expect(notYet.code).toBe(2);
    expect(notYet.err).toContain('unmet: not_deprecated');
    const deprecated = await run(
      'plugin',
      'deprecate',
      `openai@${detail.version}`,
      '--reason',
      'replaced',
      ...registry(),
    );
    expect(deprecated.out).toBe(`openai@${detail.version} deprecated: replaced\n`);
    const removed = await run('plugin', 'unpublish', `openai@${detail.version}`, ...registry());
    expect(removed.out).toBe(`openai@${detail.version} removed\n`);
  });

  it('fails with exit 1 when the registry cannot be reached', async () => {
    const result = await run('plugin', 'search', 'x', '--registry', 'http://127.0.0.1:9');
    expect(result.code).toBe(1);
    expect(result.err).toContain('error:');
  });
});
