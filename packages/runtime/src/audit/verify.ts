import {
  GENESIS_HASH,
  isDamagedAuditEntry,
  type AuditChainBroken,
  type AuditChainOk,
  type AuditStore,
} from '@weft/core';
import { auditHash } from './hash.js';

/**
 * Walks the audit chain from its first kept entry, `batchSize` entries per read, and answers
 * where it first breaks: a missing `seq` (`gap`, at the first missing seq: a deleted entry), an
 * entry whose content does not give its `hash` (`hash_mismatch`: an edited entry), or an entry
 * whose `prev_hash` is not the hash of the entry before (`prev_mismatch`: an entry removed or
 * replaced and the rest re-hashed), or a row that cannot be read (`damaged`). Retention deletes the oldest entries and records the last
 * one it deleted (the store's `anchor`): the first kept entry must follow it exactly, so a chain
 * cut at its start by anything but retention is still a `gap`. A whole chain answers its length
 * (from `first_seq` when retention deleted older entries) and last hash; comparing that hash
 * with one kept elsewhere (the log lines carry every entry's hash) also shows a cut-off tail,
 * which the chain alone cannot.
 */
export async function verifyAuditChain(
  store: AuditStore,
  batchSize = 1000,
): Promise<AuditChainOk | AuditChainBroken> {
  const anchor = await store.anchor();
  const first = anchor ? Number(anchor.seq) + 1 : 1;
  let seq = first - 1;
  let last = anchor?.hash ?? GENESIS_HASH;
  for (;;) {
    const entries = await store.read({ afterSeq: seq, limit: batchSize });
    if (entries.length === 0) {
      // Retention keeps the last entry: an anchor with nothing after it is a deleted tail.
      if (anchor && seq === first - 1) return { status: 'broken', at_seq: first, reason: 'gap' };
      const whole = { status: 'ok' as const, entries: seq - first + 1, last_hash: last };
      return first === 1 ? whole : { ...whole, first_seq: first };
    }
    for (const entry of entries) {
      if (entry.seq !== seq + 1) return { status: 'broken', at_seq: seq + 1, reason: 'gap' };
      if (isDamagedAuditEntry(entry)) {
        return { status: 'broken', at_seq: entry.seq, reason: 'damaged' };
      }
      if (auditHash(entry) !== entry.hash) {
        return { status: 'broken', at_seq: entry.seq, reason: 'hash_mismatch' };
      }
      if (entry.prev_hash !== last) {
        return { status: 'broken', at_seq: entry.seq, reason: 'prev_mismatch' };
      }
      seq = entry.seq;
      last = entry.hash;
    }
  }
}
