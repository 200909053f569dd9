import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLocalKey, startServer, type RunningServer } from '@weft/server';
import { run } from '../test-support.js';

const dir = mkdtempSync(join(tmpdir(), 'weft-deploy-'));
const FILE = `workflows:
  - name: nightly
    version: 1.2.0
    triggers:
      - { type: manual }
      - type: webhook
        path: /nightly
        auth: { type: bearer, secret_name: NIGHTLY_TOKEN }
    steps:
      - { name: t, type: transform, input: { ok: true } }
  - name: other
    steps:
      - { name: t, type: transform, input: { ok: true } }
`;

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

let server: RunningServer;
let key: string;

beforeAll(async () => {
  server = await startServer(
    {
      port: 0,
      dataDir: join(dir, 'data'),
      logLevel: 'silent',
      triggers: { secretsEnvironment: { NIGHTLY_TOKEN: 'nightly-token-of-24-bytes' } },
    },
    { logger: false },
  );
  key = (await createLocalKey({ dataDir: join(dir, 'data') }, { name: 'acme' })).key;
});
afterAll(async () => {
  await server.close();
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

const deployed = async () => {
  const response = await fetch(`${server.url}/workflows`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return ((await response.json()) as { workflows: { name: string; revision: number }[] }).workflows;
};

describe('weft workflow deploy', () => {
  it('deploys the workflow --workflow names and prints its version, revision and webhooks', async () => {
    const result = await run(
      'workflow',
      'deploy',
      file('a.yaml', FILE),
      '--workflow',
      'nightly',
      '--server',
      server.url,
      '--api-key',
      key,
    );
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    expect(result.out).toBe(
      `deployed nightly 1.2.0, revision 1, to ${server.url}\n  webhook: POST /hooks/nightly\n`,
    );
    expect((await deployed()).map((w) => w.name)).toEqual(['nightly']);
  });

  it('deploys every workflow of the file, with the key and server from the environment', async () => {
    vi.stubEnv('WORKFLOW_REGISTRY_API_KEY', key);
    vi.stubEnv('WORKFLOW_CLOUD_URL', server.url);
    const result = await run('workflow', 'deploy', file('b.yaml', FILE), '-o', 'json');
    vi.unstubAllEnvs();
    expect(result.code).toBe(0);
    const answers = JSON.parse(result.out) as { name: string; revision: number }[];
    // `nightly` is deployed again unchanged: no new revision.
    expect(answers.map((a) => [a.name, a.revision])).toEqual([
      ['nightly', 1],
      ['other', 1],
    ]);
  });

  it('refuses without a key or a server, and deploys nothing from an invalid file', async () => {
    const noKey = await run('workflow', 'deploy', file('c.yaml', FILE), '--server', server.url);
    expect(noKey.code).toBe(2);
    expect(noKey.err).toContain('WORKFLOW_REGISTRY_API_KEY');
    const noServer = await run('workflow', 'deploy', file('c.yaml', FILE), '--api-key', key);
    expect(noServer.code).toBe(2);
    expect(noServer.err).toContain('--server');
    const invalid = await run(
      'workflow',
      'deploy',
      file('bad.yaml', 'workflows:\n  - name: broken\n    steps:\n      - { name: t, typo: 1 }\n'),
      '--server',
      server.url,
      '--api-key',
      key,
    );
    expect(invalid.code).toBe(2);
    expect((await deployed()).map((w) => w.name)).not.toContain('broken');
  });

  it("prints the server's error and exits 2 when it refuses the workflow", async () => {
    const result = await run(
      'workflow',
      'deploy',
      file(
        'r.yaml',
        'workflows:\n  - name: executions\n    steps:\n      - { name: t, type: transform, input: {} }\n',
      ),
      '--server',
      server.url,
      '--api-key',
      key,
    );
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/reserved.*\[VALIDATION\]/);
  });

  it('prints the warning of a plugin the server cannot run; --strict deploys none of the file', async () => {
    const text = `workflows:
  - name: greet
    steps:
      - { name: t, type: transform, input: { ok: true } }
  - name: counter
    steps:
      - { name: count, plugin: text-tools, action: word_count, input: { text: hi } }
`;
    const args = ['--server', server.url, '--api-key', key];
    const strict = await run('workflow', 'deploy', file('s.yaml', text), '--strict', ...args);
    expect(strict.code).toBe(2);
    expect(strict.err).toMatch(
      /not deployed \(strict\): "counter" has 1 warning: plugin "text-tools" is neither published nor registered/,
    );
    expect(strict.out).toBe('');
    const names = (await deployed()).map((w) => w.name);
    expect(names).not.toContain('greet');
    expect(names).not.toContain('counter');

    const loose = await run('workflow', 'deploy', file('s.yaml', text), ...args);
    expect(loose.code).toBe(0);
    expect(loose.err).toContain(
      '  warning: plugin "text-tools" is neither published nor registered',
    );
    expect((await deployed()).map((w) => w.name)).toEqual(
      expect.arrayContaining(['greet', 'counter']),
    );
  });

  it('deploys a subworkflow of the file before its caller, so that nothing warns', async () => {
    const text = (suffix: string) => `workflows:
  - name: caller${suffix}
    steps:
      - { name: call, type: workflow, workflow: callee${suffix} }
  - name: callee${suffix}
    steps:
      - { name: t, type: transform, input: { ok: true } }
`;
    const args = ['--server', server.url, '--api-key', key];
    const whole = await run('workflow', 'deploy', file('sub.yaml', text('-a')), ...args);
    expect(whole.code, whole.err).toBe(0);
    expect(whole.err).toBe('');
    expect(whole.out.indexOf('deployed callee-a')).toBeLessThan(
      whole.out.indexOf('deployed caller-a'),
    );

    // Alone, the caller warns (its callee is not on the server), once: "warning:" is not doubled.
    const alone = await run(
      'workflow',
      'deploy',
      file('sub-b.yaml', text('-b')),
      '--workflow',
      'caller-b',
      ...args,
    );
    expect(alone.code, alone.err).toBe(0);
    expect(alone.err).toMatch(
      /^ {2}warning: steps\[0\]\.workflow: workflow "callee-b" is not defined/m,
    );
    expect(alone.err).not.toContain('warning: warning:');
  });
});
