import type BetterSqlite3 from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import {
  chainAuditDrafts,
  type AuditDraft,
  type AuditChainHead,
  type AuditEntry,
  type AuditQuery,
  type AuditSeal,
  type AuditStore,
  type ReadAuditEntry,
} from '@weft/core';
import { auditEntryOf, auditRow } from './audit-rows.js';
import type { Database, Dialect } from './database.js';
import type { SqliteGroupCommit } from './sqlite-group-commit.js';

/** The columns of `audit_entries`, in the order the SQLite insert names them. */
const COLUMNS = [
  'seq',
  'id',
  'at',
  'subject',
  'credential',
  'action',
  'workflow',
  'execution_id',
  'step',
  'decision',
  'reason',
  'required',
  'missing',
  'prev_hash',
  'hash',
  'owner',
] as const;

const LAST = 'SELECT seq, hash FROM audit_entries ORDER BY seq DESC LIMIT 1';
const INSERT = `INSERT INTO audit_entries (${COLUMNS.join(', ')})
  VALUES (${COLUMNS.map(() => '?').join(', ')})`;

/**
 * {@link AuditStore} on SQLite or PostgreSQL. An append reads the last entry and inserts the
 * next ones in one transaction that no other append can interleave with: on PostgreSQL it holds
 * a transaction-scoped advisory lock (one per schema) from before the read until the commit; on
 * SQLite it is a write of the group commit, whose synchronous statements nothing else runs
 * between (and a writer in another process fails on the changed snapshot instead of forking the
 * chain). `seq` is the primary key besides, so a fork could never be stored. It shares the
 * registry store's connection and is closed with it.
 */
export class KyselyAuditStore implements AuditStore {
  readonly kind: Dialect;
  private readonly sqlite?: {
    group: SqliteGroupCommit;
    last: BetterSqlite3.Statement;
    insert: BetterSqlite3.Statement;
  };

  /** On SQLite, give the better-sqlite3 handle under `db` and its group commit. */
  constructor(
    private readonly db: Kysely<Database>,
    dialect: Dialect,
    sqlite?: { database: BetterSqlite3.Database; group: SqliteGroupCommit },
  ) {
    this.kind = dialect;
    if (dialect === 'sqlite') {
      if (!sqlite) throw new Error('an SQLite audit store needs its SQLite handle');
      this.sqlite = {
        group: sqlite.group,
        last: sqlite.database.prepare(LAST),
        insert: sqlite.database.prepare(INSERT),
      };
    }
  }

  async append(drafts: readonly AuditDraft[], seal: AuditSeal): Promise<AuditEntry[]> {
    if (drafts.length === 0) return [];
    const sqlite = this.sqlite;
    if (sqlite) {
      return sqlite.group.run(() => {
        const head = sqlite.last.get() as AuditChainHead | undefined;
        const entries = chainAuditDrafts(head, drafts, seal);
        for (const entry of entries) {
          const row = auditRow(entry);
          sqlite.insert.run(...COLUMNS.map((c) => row[c]));
        }
        return entries;
      });
    }
    return this.db.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext('weft.audit_entries'))`.execute(
        trx,
      );
      const last = await trx
        .selectFrom('audit_entries')
        .select(['seq', 'hash'])
        .orderBy('seq', 'desc')
        .limit(1)
        .executeTakeFirst();
      const entries = chainAuditDrafts(last, drafts, seal);
      await trx.insertInto('audit_entries').values(entries.map(auditRow)).execute();
      return entries;
    });
  }

  async read(query: AuditQuery): Promise<ReadAuditEntry[]> {
    let select = this.db
      .selectFrom('audit_entries')
      .select(COLUMNS)
      .where('seq', '>', query.afterSeq);
    if (query.since !== undefined) select = select.where('at', '>=', query.since);
    if (query.owner !== undefined) select = select.where('owner', '=', query.owner);
    const rows = await select.orderBy('seq').limit(query.limit).execute();
    return rows.map(auditEntryOf);
  }

  /**
   * Deletes the oldest entries before `before` and moves the anchor to the last one deleted, in
   * one transaction (on PostgreSQL under the lock appends take, so two replicas pruning at once
   * never leave an anchor behind the entries they deleted).
   */
  async prune(before: string, limit: number): Promise<number> {
    if (limit <= 0) return 0;
    return this.db.transaction().execute(async (trx) => {
      if (this.kind === 'postgres') {
        await sql`SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext('weft.audit_entries'))`.execute(
          trx,
        );
      }
      // One more than asked: the last entry of the log is never deleted.
      const oldest = await trx
        .selectFrom('audit_entries')
        .select(['seq', 'hash', 'at'])
        .orderBy('seq')
        .limit(limit + 1)
        .execute();
      const deletable = oldest.length > limit ? oldest.slice(0, limit) : oldest.slice(0, -1);
      let cut = 0;
      while (cut < deletable.length && deletable[cut]!.at < before) cut++;
      if (cut === 0) return 0;
      const anchor = deletable[cut - 1]!;
      await trx.deleteFrom('audit_entries').where('seq', '<=', anchor.seq).execute();
      const row = { seq: anchor.seq, hash: anchor.hash, pruned_at: new Date().toISOString() };
      await trx
        .insertInto('audit_anchor')
        .values({ id: 1, ...row })
        .onConflict((oc) => oc.column('id').doUpdateSet(row))
        .execute();
      return cut;
    });
  }

  async anchor(): Promise<AuditChainHead | undefined> {
    const row = await this.db
      .selectFrom('audit_anchor')
      .select(['seq', 'hash'])
      .where('id', '=', 1)
      .executeTakeFirst();
    return row && { seq: Number(row.seq), hash: row.hash };
  }
}
