import { createHash } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  GENESIS_HASH,
  type AuditDraft,
  type AuditEntry,
  type AuditStore,
  type ReadAuditEntry,
  type UnsealedAuditEntry,
} from '@weft/core';

/** An audit store under test, another one on the same data (a replica), and its disposal. */
export interface OpenedAuditStore {
  store: AuditStore;
  replica(): Promise<AuditStore>;
  /** SQL on the store's rows from outside (stores in a database only). */
  tamper?(statement: string): Promise<void>;
  dispose(): Promise<void>;
}

/** JSON with sorted keys: the runtime seals with RFC 8785; any stable encoding does here. */
function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    const object = value as Record<string, unknown>;
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stable(object[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const seal = (entry: UnsealedAuditEntry): string =>
  createHash('sha256').update(stable(entry)).digest('hex');

let ids = 0;
function draft(at: string, extra: Partial<AuditDraft> = {}): AuditDraft {
  return {
    id: `entry-${++ids}`,
    at,
    subject: 'alice',
    credential: 'api_key',
    action: 'execution.start',
    workflow: 'orders',
    execution_id: null,
    step: null,
    decision: 'deny',
    reason: 'lacks role finance',
    required: { roles: ['finance', 'admin'], permissions: ['orders:run'] },
    missing: { roles: ['finance', 'admin'], permissions: [] },
    owner: 'acme',
    ...extra,
  };
}

/** Every entry of `store`, in chain order (none of them damaged). */
async function all(store: AuditStore): Promise<AuditEntry[]> {
  const entries: AuditEntry[] = [];
  for (;;) {
    const page = await store.read({ afterSeq: entries.at(-1)?.seq ?? 0, limit: 7 });
    if (page.length === 0) return entries;
    entries.push(...(page as AuditEntry[]));
  }
}

/** Throws unless `entries` are 1..n, each chained to the one before and sealed. */
function expectOneChain(entries: readonly AuditEntry[]): void {
  let prev = GENESIS_HASH;
  entries.forEach((entry, i) => {
    // The owner is filed beside the entry, outside what its hash covers.
    const { hash, owner: _owner, ...unsealed } = entry;
    expect(entry.seq).toBe(i + 1);
    expect(entry.prev_hash).toBe(prev);
    expect(hash).toBe(seal(unsealed));
    prev = hash;
  });
}

/** The behaviour every {@link AuditStore} shares. */
export function auditStoreContract(open: () => Promise<OpenedAuditStore>): void {
  let opened: OpenedAuditStore;
  let store: AuditStore;
  beforeEach(async () => {
    opened = await open();
    store = opened.store;
  });
  afterEach(async () => opened.dispose());

  it('numbers entries from 1 and chains the first to 64 zeros', async () => {
    const [first, second] = await store.append(
      [draft('2026-01-01T00:00:00.000Z'), draft('2026-01-01T00:00:01.000Z')],
      seal,
    );
    expect(first).toMatchObject({ seq: 1, prev_hash: GENESIS_HASH });
    expect(second).toMatchObject({ seq: 2, prev_hash: first!.hash });
    expect(await all(store)).toEqual([first, second]);
    expectOneChain(await all(store));
  });

  it('reads back exactly what was sealed: nulls, arrays in order, any text', async () => {
    const odd = draft('2026-01-01T00:00:00.000Z', {
      subject: 'zoë@example.com ☃ 𝄞',
      credential: 'oidc',
      action: 'step.run',
      workflow: null,
      execution_id: '0190aaaa-0000-7000-8000-000000000000',
      step: 'approve/notify',
      decision: 'approved',
      reason: 'line one\nline "two"',
      required: { roles: ['b', 'a'], permissions: ['x:y', 'a:b'] },
      missing: { roles: [], permissions: [] },
    });
    const [written] = await store.append([odd], seal);
    const [read] = (await store.read({ afterSeq: 0, limit: 10 })) as AuditEntry[];
    expect(read).toEqual(written);
    expect(read).toMatchObject(odd);
    expectOneChain([read!]);
  });

  it('continues the chain from the last entry on the next append', async () => {
    await store.append([draft('2026-01-01T00:00:00.000Z')], seal);
    await store.append([], seal);
    await store.append(
      [draft('2026-01-01T00:00:02.000Z'), draft('2026-01-01T00:00:03.000Z')],
      seal,
    );
    const entries = await all(store);
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3]);
    expectOneChain(entries);
  });

  it('stores nothing of an append that fails part way', async () => {
    await store.append([draft('2026-01-01T00:00:00.000Z')], seal);
    let sealed = 0;
    const failing = (entry: UnsealedAuditEntry) => {
      if (++sealed === 2) throw new Error('seal failed');
      return seal(entry);
    };
    const batch = [draft('2026-01-01T00:00:01.000Z'), draft('2026-01-01T00:00:02.000Z')];
    await expect(store.append(batch, failing)).rejects.toThrow('seal failed');
    await store.append([draft('2026-01-01T00:00:03.000Z')], seal);
    const entries = await all(store);
    expect(entries.map((e) => e.at)).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:03.000Z',
    ]);
    expectOneChain(entries);
  });

  it('reads pages after a seq, since an instant, at most limit entries', async () => {
    const times = ['00', '05', '10', '15', '20'].map((s) => `2026-01-01T00:00:${s}.000Z`);
    await store.append(
      times.map((at) => draft(at)),
      seal,
    );
    const seqs = (entries: ReadAuditEntry[]) => entries.map((e) => e.seq);
    expect(seqs(await store.read({ afterSeq: 0, limit: 2 }))).toEqual([1, 2]);
    expect(seqs(await store.read({ afterSeq: 2, limit: 2 }))).toEqual([3, 4]);
    expect(seqs(await store.read({ afterSeq: 4, limit: 2 }))).toEqual([5]);
    expect(seqs(await store.read({ afterSeq: 5, limit: 2 }))).toEqual([]);
    const since = '2026-01-01T00:00:10.000Z';
    expect(seqs(await store.read({ afterSeq: 0, since, limit: 10 }))).toEqual([3, 4, 5]);
    expect(seqs(await store.read({ afterSeq: 3, since, limit: 1 }))).toEqual([4]);
    expect(await store.read({ afterSeq: 0, since: '2026-01-02T00:00:00.000Z', limit: 10 })).toEqual(
      [],
    );
  });

  it('keeps one chain when one store appends many times at once', async () => {
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.append([draft(`2026-01-01T00:00:${String(i).padStart(2, '0')}.000Z`)], seal),
      ),
    );
    const entries = await all(store);
    expect(entries).toHaveLength(20);
    expectOneChain(entries);
  });

  it('keeps one unbroken chain when two replicas append at once', async () => {
    const other = await opened.replica();
    const writer = (target: AuditStore, name: string) =>
      Promise.all(
        Array.from({ length: 25 }, (_, i) =>
          target.append(
            [
              draft('2026-01-01T00:00:00.000Z', { subject: `${name}-${i}` }),
              draft('2026-01-01T00:00:00.000Z', { subject: `${name}-${i}b` }),
            ],
            seal,
          ),
        ),
      );
    await Promise.all([writer(store, 'one'), writer(other, 'two')]);
    const entries = await all(store);
    expect(entries).toHaveLength(100);
    expectOneChain(entries);
    expect(new Set(entries.map((e) => e.subject)).size).toBe(100);
    // A batch stays together: its second entry directly follows its first.
    for (const entry of entries.filter((e) => !e.subject.endsWith('b'))) {
      expect(entries[entry.seq]!.subject).toBe(`${entry.subject}b`);
    }
    expect(await all(other)).toEqual(entries);
  });

  it('prunes the oldest entries before an instant, never the last, and anchors what is kept', async () => {
    const [first, second, third] = await store.append(
      [
        draft('2026-01-01T00:00:00.000Z'),
        draft('2026-01-02T00:00:00.000Z'),
        draft('2026-01-03T00:00:00.000Z'),
      ],
      seal,
    );
    expect(await store.anchor()).toBeUndefined();
    expect(await store.prune('2026-01-02T12:00:00.000Z', 1)).toBe(1);
    expect(await store.anchor()).toEqual({ seq: 1, hash: first!.hash });
    expect(await store.prune('2026-01-02T12:00:00.000Z', 10)).toBe(1);
    expect(await store.anchor()).toEqual({ seq: 2, hash: second!.hash });
    // Everything is old now, but the last entry stays: the chain goes on from it.
    expect(await store.prune('2027-01-01T00:00:00.000Z', 10)).toBe(0);
    expect((await all(store)).map((e) => e.seq)).toEqual([3]);
    const [fourth] = await store.append([draft('2026-01-04T00:00:00.000Z')], seal);
    expect(fourth).toMatchObject({ seq: 4, prev_hash: third!.hash });
    expect((await all(store))[0]).toMatchObject({ seq: 3, prev_hash: second!.hash });
  });

  it("reads one owner's entries: never another's, never those filed under no owner", async () => {
    await store.append(
      [
        draft('2026-01-01T00:00:00.000Z', { owner: 'acme' }),
        draft('2026-01-01T00:00:01.000Z', { owner: 'globex' }),
        draft('2026-01-01T00:00:02.000Z', { owner: null }),
        draft('2026-01-01T00:00:03.000Z', { owner: 'acme' }),
      ],
      seal,
    );
    const seqs = async (owner: string, afterSeq = 0) =>
      (await store.read({ afterSeq, owner, limit: 10 })).map((e) => [e.seq, e.owner]);
    expect(await seqs('acme')).toEqual([
      [1, 'acme'],
      [4, 'acme'],
    ]);
    expect(await seqs('acme', 1)).toEqual([[4, 'acme']]);
    expect(await seqs('globex')).toEqual([[2, 'globex']]);
    expect(await seqs('nobody')).toEqual([]);
    expect((await all(store)).map((e) => e.owner)).toEqual(['acme', 'globex', null, 'acme']);
    expectOneChain(await all(store));
  });

  it('lists a row it cannot read as damaged, with what it could read, and goes on', async () => {
    if (!opened.tamper) return;
    await store.append(
      ['00', '01', '02'].map((s) => draft(`2026-01-01T00:00:${s}.000Z`)),
      seal,
    );
    await opened.tamper(`UPDATE audit_entries SET required = '{not json' WHERE seq = 2`);
    await opened.tamper(`UPDATE audit_entries SET decision = 'maybe' WHERE seq = 3`);
    const [first, second, third] = await store.read({ afterSeq: 0, limit: 10 });
    expect(first).not.toHaveProperty('damaged');
    expect(second).toMatchObject({ seq: 2, damaged: true, damage: 'required: not JSON' });
    expect(second).toMatchObject({ subject: 'alice', owner: 'acme', decision: 'deny' });
    expect(second).not.toHaveProperty('required');
    expect(third).toMatchObject({ seq: 3, damaged: true, damage: 'decision: not a known value' });
    expect(third).not.toHaveProperty('decision');
    expect(await store.read({ afterSeq: 0, owner: 'acme', limit: 10 })).toHaveLength(3);
  });
}
