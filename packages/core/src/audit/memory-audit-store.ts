import type { AuditEntry } from './entry.js';
import { chainAuditDrafts } from './chain.js';
import type { AuditDraft, AuditQuery, AuditSeal, AuditStore } from './store.js';

/**
 * {@link AuditStore} in process memory: for tests and for a runtime built without a database.
 * Nothing survives the process, so it is no audit log for production.
 */
export class MemoryAuditStore implements AuditStore {
  readonly kind = 'memory';
  private readonly entries: AuditEntry[] = [];

  async append(drafts: readonly AuditDraft[], seal: AuditSeal): Promise<AuditEntry[]> {
    const sealed = chainAuditDrafts(this.entries.at(-1), drafts, seal);
    this.entries.push(...sealed);
    return structuredClone(sealed);
  }

  async read(query: AuditQuery): Promise<AuditEntry[]> {
    const found: AuditEntry[] = [];
    // seq n is at index n - 1: entries are never removed.
    for (let i = Math.max(0, query.afterSeq); i < this.entries.length; i++) {
      if (found.length >= query.limit) break;
      const entry = this.entries[i]!;
      if (query.since !== undefined && entry.at < query.since) continue;
      if (query.owner !== undefined && entry.owner !== query.owner) continue;
      found.push(entry);
    }
    return structuredClone(found);
  }
}
