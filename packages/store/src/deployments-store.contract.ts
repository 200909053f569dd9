import { afterEach, beforeEach, expect, it } from 'vitest';
import type { DeploymentRecord, DeploymentStore } from '@weft/core';

function deployment(
  name: string,
  version: string,
  extra: Partial<DeploymentRecord> = {},
): Omit<DeploymentRecord, 'revision' | 'created_at'> {
  return {
    owner: 'acme',
    name,
    version,
    definition: { name, version, steps: [{ name: 's', plugin: 'slack', action: 'post' }] },
    plugins: [{ slug: 'slack', version: '1.2.0' }],
    source: 'api',
    deployed_by: 'acme',
    deployer: null,
    deployed_at: `2026-01-0${version.split('.')[0]}T00:00:00.000Z`,
    ...extra,
  };
}

/** The behaviour every {@link DeploymentStore} shares. */
export function deploymentStoreContract(
  open: () => Promise<{ store: DeploymentStore; dispose(): Promise<void> }>,
): void {
  let store: DeploymentStore;
  let dispose: () => Promise<void>;
  beforeEach(async () => {
    ({ store, dispose } = await open());
  });
  afterEach(async () => dispose());

  it('numbers revisions, keeps the first deployment time and the whole history', async () => {
    const first = await store.put(deployment('orders', '1.0.0'));
    expect(first).toMatchObject({ revision: 1, created_at: '2026-01-01T00:00:00.000Z' });
    const second = await store.put(deployment('orders', '2.0.0'));
    expect(second).toMatchObject({ revision: 2, version: '2.0.0' });
    expect(second.created_at).toBe('2026-01-01T00:00:00.000Z');
    expect(await store.get('acme', 'orders')).toEqual(second);
    expect((await store.history('acme', 'orders')).map((r) => r.revision)).toEqual([2, 1]);
  });

  it('keeps the text each revision was deployed from, and none when none was given', async () => {
    const text = '# nightly orders\nname: orders\nversion: 1.0.0\n';
    await store.put(deployment('orders', '1.0.0', { source_text: text }));
    expect((await store.get('acme', 'orders'))!.source_text).toBe(text);
    await store.put(deployment('orders', '2.0.0'));
    const active = await store.get('acme', 'orders');
    expect(active).not.toHaveProperty('source_text');
    expect((await store.history('acme', 'orders'))[1]!.source_text).toBe(text);
  });

  it('keeps the lock each revision was deployed with, and none when none was given', async () => {
    const lock = {
      version: '1.0.0',
      plugins: { slack: { version: '1.2.0', checksum: `sha256:${'a'.repeat(64)}` } },
      agents: {
        'agent:acme/helper@^2': {
          version: '2.1.0',
          checksum: `sha256:${'b'.repeat(64)}`,
          source: 'agents/helper.yaml',
        },
      },
    };
    await store.put(deployment('orders', '1.0.0', { lock }));
    expect((await store.get('acme', 'orders'))!.lock).toEqual(lock);
    await store.put(deployment('orders', '2.0.0'));
    expect(await store.get('acme', 'orders')).not.toHaveProperty('lock');
    expect((await store.history('acme', 'orders'))[1]!.lock).toEqual(lock);
  });

  it('keeps who deployed each revision, with the grants checked then', async () => {
    const deployer = {
      kind: 'api_key' as const,
      subject: 'k-1',
      owner: 'acme',
      key_id: 'k-1',
      name: 'ci',
      roles: ['ops'],
      permissions: ['payments:write'],
    };
    await store.put(deployment('orders', '1.0.0', { deployer }));
    await store.put(deployment('orders', '2.0.0'));
    expect((await store.get('acme', 'orders'))?.deployer).toBeNull();
    expect((await store.history('acme', 'orders')).map((r) => r.deployer)).toEqual([
      null,
      deployer,
    ]);
    expect((await store.list())[0]?.deployer).toBeNull();
  });

  it('lists active deployments by name and forgets removed ones but keeps their history', async () => {
    await store.put(deployment('b', '1.0.0'));
    await store.put(deployment('a', '1.0.0'));
    expect((await store.list()).map((r) => r.name)).toEqual(['a', 'b']);
    expect(await store.remove('acme', 'a')).toBe(true);
    expect(await store.remove('acme', 'a')).toBe(false);
    expect(await store.get('acme', 'a')).toBeUndefined();
    expect((await store.list()).map((r) => r.name)).toEqual(['b']);
    expect(await store.history('acme', 'a')).toHaveLength(1);
    expect((await store.put(deployment('a', '1.0.0'))).revision).toBe(2);
  });

  it('answers which active deployments use a plugin version', async () => {
    await store.put(deployment('one', '1.0.0'));
    await store.put(
      deployment('two', '1.0.0', {
        plugins: [
          { slug: 'slack', version: '1.2.0' },
          { slug: 'slack', version: '1.2.0' },
          { slug: 'jira', version: null },
        ],
      }),
    );
    expect(await store.usersOf('slack', '1.2.0')).toEqual(['one', 'two']);
    await store.put(deployment('one', '2.0.0', { plugins: [{ slug: 'slack', version: '2.0.0' }] }));
    expect(await store.usersOf('slack', '1.2.0')).toEqual(['two']);
    await store.remove('acme', 'two');
    expect(await store.usersOf('slack', '1.2.0')).toEqual([]);
    expect(await store.usersOf('jira', '1.0.0')).toEqual([]);
  });

  it('answers which active deployments reference a plugin bare (no version)', async () => {
    await store.put(deployment('bare', '1.0.0', { plugins: [{ slug: 'jira', version: null }] }));
    await store.put(
      deployment('pinned', '1.0.0', { plugins: [{ slug: 'jira', version: '2.0.0' }] }),
    );
    expect(await store.usersOf('jira', null)).toEqual(['bare']);
    expect(await store.usersOf('jira', '2.0.0')).toEqual(['pinned']);
  });

  it('answers the active revision of every deployed name, forgetting removed ones', async () => {
    expect(await store.revisions()).toEqual(new Map());
    await store.put(deployment('a', '1.0.0'));
    await store.put(deployment('a', '2.0.0'));
    await store.put(deployment('b', '1.0.0'));
    expect(await store.revisions()).toEqual(
      new Map([
        ['acme/a', 2],
        ['acme/b', 1],
      ]),
    );
    await store.remove('acme', 'a');
    expect(await store.revisions()).toEqual(new Map([['acme/b', 1]]));
  });

  it('keeps the names of each owner apart: revisions, history, listing and removal', async () => {
    await store.put(deployment('payout', '1.0.0'));
    await store.put(deployment('payout', '2.0.0'));
    const theirs = await store.put(
      deployment('payout', '3.0.0', { owner: 'evil', deployed_by: 'evil' }),
    );
    expect(theirs).toMatchObject({ owner: 'evil', revision: 1, created_at: theirs.deployed_at });
    expect(await store.get('acme', 'payout')).toMatchObject({ owner: 'acme', version: '2.0.0' });
    expect((await store.history('evil', 'payout')).map((r) => r.version)).toEqual(['3.0.0']);
    expect((await store.list('evil')).map((r) => [r.owner, r.name])).toEqual([['evil', 'payout']]);
    expect((await store.list()).map((r) => r.owner)).toEqual(['acme', 'evil']);
    expect(await store.revisions()).toEqual(
      new Map([
        ['acme/payout', 2],
        ['evil/payout', 1],
      ]),
    );
    expect(await store.usersOf('slack', '1.2.0')).toEqual(['payout']);
    expect(await store.remove('evil', 'payout')).toBe(true);
    expect(await store.get('acme', 'payout')).toMatchObject({ revision: 2 });
    expect(await store.get('evil', 'payout')).toBeUndefined();
    expect(await store.usersOf('slack', '1.2.0')).toEqual(['payout']);
  });

  it('gives concurrent deployments of one name distinct revisions', async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, () => store.put(deployment('race', '1.0.0'))),
    );
    expect(results.map((r) => r.revision).sort()).toEqual([1, 2, 3, 4, 5]);
  });
}
