import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GENESIS_HASH, type AuditEntry } from '@weft/core';
import { openTestAuditStore, type TestAuditStore } from '@weft/store';
import { AuditLog } from './audit-log.js';
import { auditHash } from './hash.js';
import { verifyAuditChain } from './verify.js';

const url = process.env['WEFT_TEST_DATABASE_URL'];

/** Verifying a chain stored in a real database, after tampering with its rows. */
function tamperingSuite(open: () => Promise<TestAuditStore>): void {
  let opened: TestAuditStore;
  let audit: AuditLog;
  beforeEach(async () => {
    opened = await open();
    audit = new AuditLog({ store: opened.audit });
    for (const subject of ['ann', 'bob', 'cid', 'dee', 'eve']) {
      await audit.record({
        subject,
        credential: 'api_key',
        action: 'execution.start',
        decision: subject === 'eve' ? 'deny' : 'allow',
        reason: `checked ${subject}`,
        workflow: 'payroll',
        required: { roles: ['finance'] },
      });
    }
  });
  afterEach(async () => opened.dispose());

  it('finds an untouched chain whole, reading it in batches', async () => {
    const last = (await audit.read({ afterSeq: 4, limit: 1 }))[0]!;
    const whole = { status: 'ok', entries: 5, last_hash: last.hash };
    expect(await audit.verify()).toEqual(whole);
    expect(await verifyAuditChain(opened.audit, 2)).toEqual(whole);
  });

  it('shows an edited entry as a hash mismatch at its seq', async () => {
    await opened.tamper(`UPDATE audit_entries SET decision = 'allow' WHERE seq = 5`);
    expect(await audit.verify()).toEqual({ status: 'broken', at_seq: 5, reason: 'hash_mismatch' });
  });

  it('shows an edited requirement as a hash mismatch', async () => {
    await opened.tamper(
      `UPDATE audit_entries SET required = '{"roles":[],"permissions":[]}' WHERE seq = 2`,
    );
    expect(await audit.verify()).toEqual({ status: 'broken', at_seq: 2, reason: 'hash_mismatch' });
  });

  it('shows a deleted entry as a gap at the missing seq', async () => {
    await opened.tamper(`DELETE FROM audit_entries WHERE seq = 3`);
    expect(await audit.verify()).toEqual({ status: 'broken', at_seq: 3, reason: 'gap' });
  });

  it('shows a deleted first entry as a gap at 1', async () => {
    await opened.tamper(`DELETE FROM audit_entries WHERE seq = 1`);
    expect(await audit.verify()).toEqual({ status: 'broken', at_seq: 1, reason: 'gap' });
  });

  it('shows a deleted entry whose successors were renumbered and re-hashed as a prev mismatch', async () => {
    // The tamperer knows the algorithm: deletes seq 3, moves 4 and 5 down, re-seals them.
    const [, , , fourth, fifth] = (await audit.read({ afterSeq: 0, limit: 10 })) as AuditEntry[];
    await opened.tamper(`DELETE FROM audit_entries WHERE seq = 3`);
    for (const entry of [fourth!, fifth!]) {
      const moved = { ...entry, seq: entry.seq - 1 };
      const hash = auditHash(moved);
      await opened.tamper(
        `UPDATE audit_entries SET seq = ${moved.seq}, hash = '${hash}' WHERE seq = ${entry.seq}`,
      );
    }
    expect(await audit.verify()).toEqual({ status: 'broken', at_seq: 3, reason: 'prev_mismatch' });
  });

  it('checks the chain from the first entry retention kept, anchored by the last it deleted', async () => {
    const all = await audit.read({ afterSeq: 0, limit: 10 });
    const future = '2999-01-01T00:00:00.000Z';
    expect(await opened.audit.prune(future, 2)).toBe(2);
    expect(await audit.verify()).toEqual({
      status: 'ok',
      entries: 3,
      last_hash: all[4]!.hash,
      first_seq: 3,
    });
    expect(await verifyAuditChain(opened.audit, 1)).toMatchObject({ status: 'ok', first_seq: 3 });
    // Cut further by hand, not by retention: the anchor shows it.
    await opened.tamper(`DELETE FROM audit_entries WHERE seq = 3`);
    expect(await audit.verify()).toEqual({ status: 'broken', at_seq: 3, reason: 'gap' });
  });

  it('answers an empty log as whole, ending at 64 zeros', async () => {
    await opened.tamper(`DELETE FROM audit_entries`);
    expect(await audit.verify()).toEqual({ status: 'ok', entries: 0, last_hash: GENESIS_HASH });
  });
}

describe('audit chain verification on SQLite', () => {
  tamperingSuite(() => openTestAuditStore('sqlite'));
});

describe.skipIf(!url)('audit chain verification on PostgreSQL (set WEFT_TEST_DATABASE_URL)', () => {
  tamperingSuite(() => openTestAuditStore('postgres', url));
});
