import {
  chainAuditDrafts,
  type AuditChainHead,
  type AuditDraft,
  type AuditEntry,
  type AuditQuery,
  type AuditSeal,
  type AuditStore,
} from '@weft/core';

/**
 * {@link AuditStore} in process memory: for tests and for a runtime built without a database.
 * Nothing survives the process, so it is no audit log for production. It lives with the audit
 * log rather than in `@weft/store/memory` because it is the runtime's own default, and the runtime
 * may not import the store package.
 */
export class MemoryAuditStore implements AuditStore {
  readonly kind = 'memory';
  private readonly entries: AuditEntry[] = [];
  private pruned: { seq: number; hash: string } | undefined;

  async append(drafts: readonly AuditDraft[], seal: AuditSeal): Promise<AuditEntry[]> {
    const sealed = chainAuditDrafts(this.entries.at(-1), drafts, seal);
    this.entries.push(...sealed);
    return structuredClone(sealed);
  }

  async read(query: AuditQuery): Promise<AuditEntry[]> {
    const found: AuditEntry[] = [];
    // seq n is at index n - 1 - (the entries pruned before it).
    const first = this.entries[0]?.seq ?? 1;
    for (let i = Math.max(0, query.afterSeq - first + 1); i < this.entries.length; i++) {
      if (found.length >= query.limit) break;
      const entry = this.entries[i]!;
      if (query.since !== undefined && entry.at < query.since) continue;
      if (query.owner !== undefined && entry.owner !== query.owner) continue;
      found.push(entry);
    }
    return structuredClone(found);
  }

  async prune(before: string, limit: number): Promise<number> {
    let count = 0;
    while (count < limit && this.entries.length > 1 && this.entries[0]!.at < before) {
      const gone = this.entries.shift()!;
      this.pruned = { seq: gone.seq, hash: gone.hash };
      count++;
    }
    return count;
  }

  async anchor(): Promise<AuditChainHead | undefined> {
    return this.pruned && { ...this.pruned };
  }
}
