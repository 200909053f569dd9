import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keyPrincipal, UnauthorizedError, type Principal } from '@weft/core';
import {
  openTestAuditStore,
  openTestExecutionsStore,
  type TestAuditStore,
  type TestExecutionsStore,
} from '@weft/store';
import { buildRuntimeHarness, testActions, type RuntimeHarness } from '../test-support/harness.js';

const url = process.env['WEFT_TEST_DATABASE_URL'];

/** Two organisations with look-alike roles, an admin key, a colleague without the role. */
const PRINCIPALS: Record<string, Principal> = {
  admin: keyPrincipal({ keyId: 'k0', owner: 'ops', admin: true }),
  acmeAuditor: keyPrincipal({ keyId: 'k1', owner: 'acme', roles: ['auditor'] }),
  acmeClerk: keyPrincipal({ keyId: 'k2', owner: 'acme', roles: ['clerk'] }),
  globexAuditor: keyPrincipal({ keyId: 'k3', owner: 'globex', roles: ['auditor'] }),
};

for (const kind of ['sqlite', 'postgres'] as const) {
  describe.skipIf(kind === 'postgres' && !url)(`the audit log by workspace (${kind})`, () => {
    let executions: TestExecutionsStore;
    let auditStore: TestAuditStore;
    let h: RuntimeHarness;

    beforeEach(async () => {
      executions = await openTestExecutionsStore(kind, url);
      auditStore = await openTestAuditStore(kind, url);
      h = await buildRuntimeHarness(executions.executions, testActions({}), {
        authenticate: async (header) => {
          const principal = header ? PRINCIPALS[header.replace(/^Bearer /, '')] : undefined;
          if (!principal) throw new UnauthorizedError('no such key', { reason: 'invalid' });
          return principal;
        },
        audit: { store: auditStore.audit, auditorRoles: ['auditor'] },
      });
      for (const owner of ['acme', 'globex', null, 'acme']) {
        await h.runtime.options.audit.record({
          subject: `someone-of-${owner}`,
          credential: 'api_key',
          action: 'execution.start',
          decision: 'deny',
          reason: 'lacks role finance',
          workflow: 'payout',
          owner,
        });
      }
    });

    afterEach(async () => {
      await h.close();
      await auditStore.dispose();
      await executions.dispose();
    });

    const get = async (path: string, who: string) => {
      const answer = await h.app.inject({
        method: 'GET',
        url: path,
        headers: { authorization: `Bearer ${who}` },
      });
      return { status: answer.statusCode, body: answer.json() };
    };
    const listed = async (path: string, who: string) =>
      ((await get(path, who)).body.entries as { seq: number; owner: string | null }[]).map((e) => [
        e.seq,
        e.owner,
      ]);

    it("lets an auditor read their own workspace's entries and no other", async () => {
      expect(await listed('/audit', 'acmeAuditor')).toEqual([
        [1, 'acme'],
        [4, 'acme'],
      ]);
      // Asking for another workspace does not widen what an auditor reads.
      expect(await listed('/audit?owner=globex', 'acmeAuditor')).toEqual([
        [1, 'acme'],
        [4, 'acme'],
      ]);
      expect(await listed('/audit', 'globexAuditor')).toEqual([[2, 'globex']]);
    });

    it('lets admin keys read every entry, or one workspace', async () => {
      expect(await listed('/audit', 'admin')).toEqual([
        [1, 'acme'],
        [2, 'globex'],
        [3, null],
        [4, 'acme'],
      ]);
      expect(await listed('/audit?owner=globex', 'admin')).toEqual([[2, 'globex']]);
      const bad = await get('/audit?owner=oidc:x', 'admin');
      expect(bad).toMatchObject({ status: 400, body: { details: { field: 'owner' } } });
    });

    it('refuses a colleague without an auditor role with 403 naming the roles', async () => {
      for (const path of ['/audit', '/audit/verify']) {
        const refused = await get(path, 'acmeClerk');
        expect(refused).toMatchObject({
          status: 403,
          body: { code: 'FORBIDDEN', details: { reason: 'not_auditor' } },
        });
        expect(refused.body.message).toContain('auditor');
      }
    });

    it('tells an auditor whether the chain is whole, nothing more; an admin where it breaks', async () => {
      expect((await get('/audit/verify', 'acmeAuditor')).body).toEqual({
        status: 'ok',
        scope: 'workspace',
      });
      // A break in another workspace's entry breaks the one chain all workspaces share.
      await auditStore.tamper(`UPDATE audit_entries SET reason = 'edited' WHERE seq = 2`);
      expect(await get('/audit/verify', 'acmeAuditor')).toEqual({
        status: 200,
        body: { status: 'broken', scope: 'workspace' },
      });
      expect((await get('/audit/verify', 'admin')).body).toEqual({
        status: 'broken',
        at_seq: 2,
        reason: 'hash_mismatch',
      });
    });

    it('lists a damaged row marked, and reports it as a break instead of failing', async () => {
      await auditStore.tamper(`UPDATE audit_entries SET required = '{"roles": [' WHERE seq = 3`);
      const verified = await get('/audit/verify', 'admin');
      expect(verified).toEqual({
        status: 200,
        body: { status: 'broken', at_seq: 3, reason: 'damaged' },
      });
      const page = await get('/audit', 'admin');
      expect(page.status).toBe(200);
      const entries = page.body.entries as Record<string, unknown>[];
      expect(entries.map((e) => e['seq'])).toEqual([1, 2, 3, 4]);
      expect(entries[2]).toMatchObject({
        seq: 3,
        damaged: true,
        damage: 'required: not JSON',
        subject: 'someone-of-null',
      });
      expect(entries[2]).not.toHaveProperty('required');
      expect(entries[3]).not.toHaveProperty('damaged');
      // Damage in another workspace's row does not hide an auditor's own entries.
      expect(await listed('/audit', 'acmeAuditor')).toEqual([
        [1, 'acme'],
        [4, 'acme'],
      ]);
    });
  });
}
