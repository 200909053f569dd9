import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalKey, startServer, type RunningServer } from '@weft/server';
import { run } from '../test-support.js';

const dir = mkdtempSync(join(tmpdir(), 'weft-deploy-check-'));

/** A guarded workflow whose runs wait for approval; `pay` is the step `v2` renames. */
const gate = (version: string, last: string) => `workflows:
  - name: gate
    version: ${version}
    authorization:
      enabled: true
      roles: [finance]
      approval: { required: true, approvers: [lead], timeout: 600 }
    steps:
      - { name: check, type: transform, input: { ok: true } }
      - { name: ${last}, type: transform, input: { ok: true } }
`;

const CALM = `workflows:
  - name: calm
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
let args: string[];

beforeAll(async () => {
  const dataDir = join(dir, 'data');
  server = await startServer({ port: 0, dataDir, logLevel: 'silent' }, { logger: false });
  key = (await createLocalKey({ dataDir }, { name: 'acme', roles: ['finance'] })).key;
  args = ['--server', server.url, '--api-key', key];
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = async (method: string, path: string) => {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(method === 'POST' ? { body: '{}' } : {}),
  });
  return (await response.json()) as Record<string, unknown>;
};

describe('weft workflow deploy --check', () => {
  it('exits 0 with no breaking change, 1 when a waiting run meets one; --force deploys it', async () => {
    expect(
      (await run('workflow', 'deploy', file('v1.yaml', gate('1.0.0', 'pay')), ...args)).code,
    ).toBe(0);
    const started = await call('POST', '/workflows/gate/executions');
    const id = String(started['execution_id']);
    for (
      let i = 0;
      i < 500 && (await call('GET', `/workflows/executions/${id}`))['status'] !== 'waiting';
      i++
    )
      await new Promise((resolve) => setTimeout(resolve, 10));

    const v2 = file('v2.yaml', gate('2.0.0', 'payment'));
    const check = await run('workflow', 'deploy', v2, '--check', ...args);
    expect(check.code).toBe(1);
    expect(check.out).toContain(
      `checked gate 2.0.0, deployed: 1.0.0 on ${server.url} (nothing deployed)`,
    );
    expect(check.out).toContain(
      'revision 1 → 2; work in progress keeps the revision it started on (pinned)',
    );
    expect(check.out).toContain('    ~ pay renamed payment\n');
    expect(check.out).toContain('executions in progress: 1 waiting, 0 running, 0 pending');
    expect(check.out).toContain(
      `    ! ${id} (waiting for approval, next step check, on 1.0.0): step "pay" is renamed "payment"\n`,
    );
    expect(check.err).toBe(
      'breaking: a deploy is refused (409) unless --force; nothing was deployed\n',
    );

    const json = await run('workflow', 'deploy', v2, '--check', '-o', 'json', ...args);
    expect(json.code).toBe(1);
    const answers = JSON.parse(json.out) as { status: string; impact: { breaking: boolean } }[];
    expect(answers).toMatchObject([{ status: 'checked', impact: { breaking: true } }]);
    expect((await call('GET', '/workflows/gate'))['revision']).toBe(1);

    const refused = await run('workflow', 'deploy', v2, ...args);
    expect(refused.code).not.toBe(0);
    expect(refused.err).toContain('[CONFLICT]');
    expect(refused.err).toContain(id);
    expect((await call('GET', '/workflows/gate'))['revision']).toBe(1);

    const forced = await run('workflow', 'deploy', v2, '--force', ...args);
    expect(forced.code, forced.err).toBe(0);
    expect(forced.err).toBe(
      '  forced (audited): 1 execution in progress (they keep the revision they started on); 1 meets a change of the steps they have left, 1 of them waiting for a change this deploy brings (breaking)\n',
    );
    expect((await call('GET', '/workflows/gate'))['revision']).toBe(2);

    const both = await run('workflow', 'deploy', v2, '--check', '--force', ...args);
    expect(both.code).toBe(2);
  });

  it('exits 0 and says so for a first deploy and for a change nothing in progress meets', async () => {
    const calm = file('calm.yaml', CALM);
    const first = await run('workflow', 'deploy', calm, '--check', ...args);
    expect(first.code).toBe(0);
    expect(first.out).toBe(
      `checked calm 1.0.0 on ${server.url} (nothing deployed)\n  first deploy: no work in progress to change\n`,
    );
    expect((await run('workflow', 'deploy', calm, ...args)).code).toBe(0);
    const again = await run(
      'workflow',
      'deploy',
      file('calm2.yaml', CALM.replace('name: t', 'name: u')),
      '--check',
      ...args,
    );
    expect(again.code).toBe(0);
    expect(again.out).toContain('  no execution in progress: nothing to change\n');
    expect(again.out).toContain('    ~ t renamed u\n');
    expect(again.err).toBe('');
  });

  it('deploys nothing of a file when one of its workflows is breaking, unless --force', async () => {
    const both = file(
      'both.yaml',
      `${CALM.replace('name: t', 'name: v')}${gate('3.0.0', 'pay3').replace('workflows:\n', '')}`,
    );
    const refused = await run('workflow', 'deploy', both, ...args);
    expect(refused.code).not.toBe(0);
    expect(refused.err).toContain(`nothing of ${both} was deployed`);
    expect(refused.err).toContain('[CONFLICT]');
    expect(refused.out).toBe('');
    expect((await call('GET', '/workflows/calm'))['revision']).toBe(1);
    expect((await call('GET', '/workflows/gate'))['revision']).toBe(2);
    const forced = await run('workflow', 'deploy', both, '--force', ...args);
    expect(forced.code, forced.err).toBe(0);
    expect((await call('GET', '/workflows/calm'))['revision']).toBe(2);
    expect((await call('GET', '/workflows/gate'))['revision']).toBe(3);
  });
});
