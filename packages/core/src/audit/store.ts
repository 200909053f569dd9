import type { AuditEntry, ReadAuditEntry } from './entry.js';
import type { AuditChainHead } from './chain.js';

/** An entry as written: everything but its place in the chain (`seq`, `prev_hash`, `hash`). */
export type AuditDraft = Omit<AuditEntry, 'seq' | 'prev_hash' | 'hash'>;

/**
 * An entry in its place in the chain, before its own hash is computed over it: what the hash
 * covers (everything but the hash and the `owner` column).
 */
export type UnsealedAuditEntry = Omit<AuditEntry, 'hash' | 'owner'>;

/** Computes the `hash` of an entry (the runtime's SHA-256 over RFC 8785 canonical JSON). */
export type AuditSeal = (entry: UnsealedAuditEntry) => string;

/** Which entries to read, oldest (lowest `seq`) first. */
export interface AuditQuery {
  /** Only entries with a higher `seq` (0: from the start). */
  afterSeq: number;
  /** Only entries decided at or after this instant (ISO 8601 UTC, as `Date#toISOString`). */
  since?: string;
  /** Only entries of this owner (workspace). */
  owner?: string;
  limit: number;
}

/**
 * Storage port of the audit log: one linear, hash-chained sequence of entries. `append` is the
 * only writer and is atomic across every process sharing the store: it reads the last entry,
 * numbers the new ones after it and chains them to it in one step (a lock on PostgreSQL, the
 * single writer on SQLite), so concurrent writers never fork the chain or reuse a `seq`.
 * Entries are never changed through the port; only retention ({@link AuditStore.prune}) removes
 * the oldest ones.
 */
export interface AuditStore {
  /** `memory`, `sqlite` or `postgres`. */
  readonly kind: string;
  /**
   * Appends `drafts` in order after the last entry: each gets the next `seq`, the previous
   * entry's hash as `prev_hash` (`GENESIS_HASH` for the first entry ever) and `seal`'s hash.
   * All are stored, or none. Resolves with the stored entries.
   */
  append(drafts: readonly AuditDraft[], seal: AuditSeal): Promise<AuditEntry[]>;
  /**
   * Entries after `query.afterSeq` (and since `query.since`, of `query.owner`), by `seq`, at
   * most `limit`. A row that cannot be read whole comes back as a {@link ReadAuditEntry} marked
   * `damaged`, never as an error.
   */
  read(query: AuditQuery): Promise<ReadAuditEntry[]>;
  /**
   * Retention: deletes up to `limit` of the oldest entries decided before `before` (ISO 8601
   * UTC), never the last entry (the chain goes on from it). The first entry kept anchors what
   * remains: its `prev_hash` is the hash of the last one deleted. Answers how many it deleted.
   */
  prune(before: string, limit: number): Promise<number>;
  /**
   * The last entry {@link prune} deleted (its `seq` and `hash`), recorded with the deletion:
   * what the first kept entry must follow. Undefined when nothing was ever pruned.
   */
  anchor(): Promise<AuditChainHead | undefined>;
}
