import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keyPrincipal, UnauthorizedError, type AuditEntry, type Principal } from '@weft/core';
import {
  openTestAuditStore,
  openTestExecutionsStore,
  type TestAuditStore,
  type TestExecutionsStore,
} from '@weft/store';
import type { AuditLog } from '../audit/audit-log.js';
import { buildRuntimeHarness, testActions, type RuntimeHarness } from '../test-support/harness.js';

const ADMIN = 'Bearer key-root';
const USER = 'Bearer key-alice';
const PRINCIPALS: Record<string, Principal> = {
  [ADMIN]: keyPrincipal({ keyId: 'kr', name: 'root', owner: 'ops', admin: true }),
  [USER]: keyPrincipal({ keyId: 'ka', name: 'alice', owner: 'alice', admin: false }),
};

let executions: TestExecutionsStore;
let auditStore: TestAuditStore;
let h: RuntimeHarness;
let audit: AuditLog;
let now: number;

beforeEach(async () => {
  executions = await openTestExecutionsStore('sqlite');
  auditStore = await openTestAuditStore('sqlite');
  now = Date.parse('2026-03-01T10:00:00.000Z');
  h = await buildRuntimeHarness(executions.executions, testActions({}), {
    authenticate: async (header) => {
      const principal = header ? PRINCIPALS[header] : undefined;
      if (!principal)
        throw new UnauthorizedError('the API key is not valid', { reason: 'invalid' });
      return principal;
    },
    audit: { store: auditStore.audit },
    clock: { now: () => now, sleep: async () => {} },
  });
  audit = h.runtime.options.audit;
});

afterEach(async () => {
  await h.close();
  await auditStore.dispose();
  await executions.dispose();
});

/** Records `n` entries, one minute apart from 10:00. */
async function recordMany(n: number): Promise<AuditEntry[]> {
  const entries: AuditEntry[] = [];
  for (let i = 0; i < n; i++) {
    now = Date.parse('2026-03-01T10:00:00.000Z') + i * 60_000;
    entries.push(
      await audit.record({
        subject: `user-${i}`,
        credential: 'api_key',
        action: 'workflow.deploy',
        decision: 'deny',
        reason: 'lacks permission',
        workflow: 'payroll',
        missing: { permissions: ['payroll:deploy'] },
      }),
    );
  }
  return entries;
}

const get = (url: string, key: string | null = ADMIN) =>
  h.app.inject({ method: 'GET', url, headers: key ? { authorization: key } : {} });

describe('GET /audit', () => {
  it('answers 401 without a key and 403 FORBIDDEN to a key that is not admin', async () => {
    for (const url of ['/audit', '/audit/verify']) {
      expect((await get(url, null)).statusCode).toBe(401);
      const refused = await get(url, USER);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ status: 'error', code: 'FORBIDDEN' });
    }
  });

  it('pages through every entry, oldest first, with next_cursor', async () => {
    const entries = await recordMany(5);
    const first = await get('/audit?limit=2');
    expect(first.statusCode).toBe(200);
    expect(first.json().entries).toEqual(entries.slice(0, 2));
    const second = await get(`/audit?limit=2&cursor=${first.json().next_cursor}`);
    expect(second.json().entries).toEqual(entries.slice(2, 4));
    const third = await get(`/audit?limit=2&cursor=${second.json().next_cursor}`);
    expect(third.json()).toEqual({ entries: entries.slice(4), next_cursor: null });
  });

  it('gives 100 entries by default', async () => {
    await recordMany(101);
    const page = await get('/audit');
    expect(page.json().entries).toHaveLength(100);
    expect(page.json().next_cursor).not.toBeNull();
  });

  it('gives entries since an instant, in any zone, or since a day', async () => {
    const entries = await recordMany(4);
    const seqs = async (url: string) =>
      ((await get(url)).json().entries as AuditEntry[]).map((e) => e.seq);
    expect(await seqs('/audit?since=2026-03-01T10:02:00Z')).toEqual([3, 4]);
    expect(await seqs('/audit?since=2026-03-01T11:01:30%2B01:00')).toEqual([3, 4]);
    expect(await seqs('/audit?since=2026-03-01')).toEqual([1, 2, 3, 4]);
    expect(await seqs('/audit?since=2026-03-02')).toEqual([]);
    const page = await get('/audit?since=2026-03-01T10:01:00.000Z&limit=1');
    expect(page.json().entries).toEqual([entries[1]]);
    const next = await get(
      `/audit?since=2026-03-01T10:01:00Z&limit=1&cursor=${page.json().next_cursor}`,
    );
    expect(next.json().entries).toEqual([entries[2]]);
  });

  it('refuses a bad since, limit, cursor or unknown parameter with 400 VALIDATION naming it', async () => {
    const cases = [
      ['since=yesterday', 'since', 'format'],
      ['since=2026-02-31', 'since', 'format'],
      ['since=2026-03-01T10:00:00', 'since', 'format'],
      ['limit=0', 'limit', 'minimum'],
      ['limit=1001', 'limit', 'maximum'],
      ['limit=1e2', 'limit', 'integer'],
      ['limit=0x10', 'limit', 'integer'],
      ['limit=%205', 'limit', 'integer'],
      ['limit=', 'limit', 'integer'],
      ['cursor=nonsense', 'cursor', 'format'],
      [`cursor=a1.${Buffer.from('0').toString('base64url')}`, 'cursor', 'format'],
      ['offset=3', 'offset', 'additionalProperties'],
    ];
    for (const [query, field, constraint] of cases) {
      const refused = await get(`/audit?${query}`);
      expect({ query, status: refused.statusCode, body: refused.json() }).toMatchObject({
        status: 400,
        body: { code: 'VALIDATION', details: { field, constraint } },
      });
    }
  });
});

describe('GET /audit/verify', () => {
  it('answers ok with the count and last hash, then where a deleted entry broke the chain', async () => {
    const entries = await recordMany(3);
    expect((await get('/audit/verify')).json()).toEqual({
      status: 'ok',
      entries: 3,
      last_hash: entries[2]!.hash,
    });
    await auditStore.tamper('DELETE FROM audit_entries WHERE seq = 2');
    const broken = await get('/audit/verify');
    expect(broken.statusCode).toBe(200);
    expect(broken.json()).toEqual({ status: 'broken', at_seq: 2, reason: 'gap' });
  });

  it('answers where an edited entry broke the chain', async () => {
    await recordMany(3);
    await auditStore.tamper(`UPDATE audit_entries SET subject = 'someone else' WHERE seq = 1`);
    expect((await get('/audit/verify')).json()).toEqual({
      status: 'broken',
      at_seq: 1,
      reason: 'hash_mismatch',
    });
  });
});
