import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditDraft, SigningKeyRecord, StoredExecution } from '@weft/core';
import { openStore, type OpenedStore } from './open.js';

const url = process.env['WEFT_TEST_DATABASE_URL'];
const OLD = 'oidc:3f2a-ada';
const AT = '2026-01-01T00:00:00.000Z';

function execution(id: string, owner: string): StoredExecution {
  return {
    id,
    owner,
    key_id: OLD,
    workflow: 'w',
    workflow_version: '1.0.0',
    mode: 'cloud',
    status: 'pending',
    definition: { workflow: { name: 'w', steps: [] }, library: [] },
    inputs: {},
    trigger: { type: 'api' },
    callback_url: null,
    created_at: AT,
    started_at: null,
    finished_at: null,
    canceled_at: null,
    result: null,
    error: null,
    callback: null,
  };
}

const signingKey = (owner: string, fingerprint: string): SigningKeyRecord => ({
  owner,
  fingerprint,
  key_id: fingerprint.slice(-16),
  key_ids: [fingerprint.slice(-16)],
  armored: '-----BEGIN PGP PUBLIC KEY BLOCK-----',
  user_ids: ['ada'],
  created_at: AT,
});

const auditDraft = (owner: string | null): AuditDraft => ({
  id: `a-${owner}`,
  at: AT,
  subject: '3f2a-ada',
  credential: 'oidc',
  action: 'execution.start',
  workflow: 'w',
  execution_id: null,
  step: null,
  decision: 'allow',
  reason: 'ok',
  required: { roles: [], permissions: [] },
  missing: { roles: [], permissions: [] },
  owner,
});
const seal = (entry: object) => createHash('sha256').update(JSON.stringify(entry)).digest('hex');

for (const kind of ['sqlite', 'postgres'] as const) {
  describe.skipIf(kind === 'postgres' && !url)(`moving an owner's data (${kind})`, () => {
    let store: OpenedStore;
    let dispose: () => Promise<void>;

    beforeEach(async () => {
      if (kind === 'sqlite') {
        const dataDir = mkdtempSync(join(tmpdir(), 'weft-move-owner-'));
        store = await openStore({ kind: 'sqlite', dataDir });
        dispose = async () => rmSync(dataDir, { recursive: true, force: true });
      } else {
        const schema = `weft_test_${randomBytes(6).toString('hex')}`;
        store = await openStore({ kind: 'postgres', url: url!, schema, poolSize: 2 });
        dispose = async () => {
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
          await client.end();
        };
      }
      await store.executions.create(execution('e1', OLD));
      await store.executions.create(execution('e2', 'globex'));
      await store.registry.insertApiKey({
        id: 'aaaaaaaaaaaa',
        name: 'ada-ci',
        owner: OLD,
        hash: 'h',
        admin: false,
        roles: [],
        permissions: [],
        created_at: AT,
      });
      await store.registry.insertSigningKey(signingKey(OLD, 'AAAA0000AAAA0000AAAA0000AAAA0001'));
      const deployer = {
        kind: 'oidc' as const,
        subject: '3f2a-ada',
        owner: OLD,
        key_id: OLD,
        name: 'ada',
        roles: ['finance'],
        permissions: [],
      };
      const base = {
        version: '1.0.0',
        definition: { name: 'payout' },
        plugins: [],
        source: 'api',
        deployed_at: AT,
      };
      await store.deployments.put({
        ...base,
        owner: OLD,
        name: 'payout',
        deployed_by: OLD,
        deployer,
      });
      await store.deployments.put({
        ...base,
        owner: OLD,
        name: 'payout',
        deployed_by: OLD,
        deployer,
      });
      await store.deployments.put({
        ...base,
        owner: 'globex',
        name: 'other',
        deployed_by: 'globex',
        deployer: null,
      });
      await store.audit.append([auditDraft(OLD), auditDraft('globex')], seal);
    });

    afterEach(async () => {
      await store.executions.close();
      await store.registry.close();
      await dispose();
    });

    it('re-owns executions, keys, deployments and audit entries; the person stays', async () => {
      const before = await store.audit.read({ afterSeq: 0, limit: 10 });
      const move = await store.moveOwner(OLD, 'acme');
      expect(move).toEqual({
        from: OLD,
        to: 'acme',
        moved: {
          executions: 1,
          usage_days: 0,
          plugins: 0,
          api_keys: 1,
          signing_keys: 1,
          deployment_revisions: 2,
          audit_entries: 1,
        },
      });
      expect((await store.executions.get('e1'))?.owner).toBe('acme');
      expect((await store.executions.get('e1'))?.key_id).toBe(OLD);
      expect((await store.executions.get('e2'))?.owner).toBe('globex');
      expect((await store.registry.findApiKey('aaaaaaaaaaaa'))?.owner).toBe('acme');
      expect(await store.registry.listSigningKeys('acme')).toHaveLength(1);
      for (const revision of await store.deployments.history('acme', 'payout')) {
        expect(revision.owner).toBe('acme');
        expect(revision.deployed_by).toBe('acme');
        expect(revision.deployer).toMatchObject({
          owner: 'acme',
          key_id: OLD,
          subject: '3f2a-ada',
        });
      }
      expect((await store.deployments.get('globex', 'other'))?.deployed_by).toBe('globex');
      expect(await store.deployments.get(OLD, 'payout')).toBeUndefined();
      expect(await store.deployments.revisions()).toEqual(
        new Map([
          ['acme/payout', 2],
          ['globex/other', 1],
        ]),
      );
      const after = await store.audit.read({ afterSeq: 0, limit: 10 });
      expect(after.map((e) => e.owner)).toEqual(['acme', 'globex']);
      // Only the owner column changed: the sealed content and its hashes are as they were.
      expect(after.map((e) => e.hash)).toEqual(before.map((e) => e.hash));
      // Moving again finds nothing left.
      expect(Object.values((await store.moveOwner(OLD, 'acme')).moved)).toEqual([
        0, 0, 0, 0, 0, 0, 0,
      ]);
    });

    it('moves the usage and counts its days, however many rows hold each', async () => {
      const call = { executions: 0, action_calls: 1, duration_ms: 2 };
      // On PostgreSQL each call adds to a random one of the day's shards.
      for (let i = 0; i < 20; i++) {
        await store.executions.addUsage(OLD, OLD, '2026-01-01', call);
      }
      await store.executions.addUsage(OLD, OLD, '2026-01-02', call);
      expect((await store.moveOwner(OLD, 'acme')).moved.usage_days).toBe(2);
      expect(await store.executions.usage(OLD, '2026-01-01')).toEqual([]);
      expect(await store.executions.usage('acme', '2026-01-01')).toEqual([
        { key_id: OLD, date: '2026-01-01', executions: 0, action_calls: 20, duration_ms: 40 },
        { key_id: OLD, date: '2026-01-02', executions: 0, action_calls: 1, duration_ms: 2 },
      ]);
    });

    it('refuses, changing nothing, when the target holds the same signing key', async () => {
      await store.registry.insertSigningKey(signingKey('acme', 'AAAA0000AAAA0000AAAA0000AAAA0001'));
      const refused = await store.moveOwner(OLD, 'acme').catch((e: unknown) => e);
      expect(refused).toMatchObject({
        code: 'CONFLICT',
        details: { reason: 'owner_conflict', signing_keys: ['AAAA0000AAAA0000AAAA0000AAAA0001'] },
      });
      expect((refused as Error).message).toContain('AAAA0000AAAA0000AAAA0000AAAA0001');
      expect((await store.executions.get('e1'))?.owner).toBe(OLD);
      expect((await store.registry.findApiKey('aaaaaaaaaaaa'))?.owner).toBe(OLD);
    });

    it('refuses, changing nothing, when the target has a deployment of the same name', async () => {
      await store.deployments.put({
        owner: 'acme',
        name: 'payout',
        version: '1.0.0',
        definition: { name: 'payout' },
        plugins: [],
        source: 'api',
        deployed_by: 'acme',
        deployer: null,
        deployed_at: AT,
      });
      await expect(store.moveOwner(OLD, 'acme')).rejects.toMatchObject({
        code: 'CONFLICT',
        details: { reason: 'owner_conflict', workflows: ['payout'] },
      });
      expect((await store.deployments.history(OLD, 'payout')).map((r) => r.owner)).toEqual([
        OLD,
        OLD,
      ]);
      expect((await store.executions.get('e1'))?.owner).toBe(OLD);
    });

    it('refuses a target that is not an owner name, or the same owner', async () => {
      await expect(store.moveOwner(OLD, 'oidc:bob')).rejects.toMatchObject({
        code: 'VALIDATION',
        details: { field: 'to' },
      });
      await expect(store.moveOwner('acme', 'acme')).rejects.toMatchObject({
        code: 'VALIDATION',
      });
      expect((await store.executions.get('e1'))?.owner).toBe(OLD);
    });
  });
}
