import type BetterSqlite3 from 'better-sqlite3';
import { asStoreError } from './unavailable.js';

/** Groups of one write committed in one turn of the event loop before the next one waits. */
export const TURN_GROUPS = 16;

/**
 * Writes of one group commit at most; the rest commit in the next turn of the event loop, after
 * the I/O callbacks ready meanwhile. A group is synchronous: at 64 webhook connections groups
 * averaged ~70 writes (~40 µs each on a slow VM, 3 ms) but a burst after a pause reached 128.
 * Smaller groups hold the loop for less but write more WAL frames per write (a webhook's three
 * writes: ~6.4 frames in groups of 64, ~7.8 in groups of 32).
 */
export const MAX_GROUP_WRITES = 64;

/** A write waiting for the next group commit. */
interface Queued {
  write: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit on SQLite. A commit costs far more than the rows it writes (~20 µs of WAL writes
 * on the CI machine, a few µs per row), so the hot writes asked for during one turn of the event
 * loop (the inserts, journal entries and ends of every execution running at the time, the
 * webhook deliveries) are committed together in one transaction. A write that throws rolls back
 * alone and rejects alone: the group then runs again with each write in a savepoint of its own.
 * Each promise resolves once its transaction committed. The connection is shared with Kysely,
 * whose transactions span awaits: a group waits until none is open, so it never joins (and never
 * rolls back with) someone else's transaction.
 */
export class SqliteGroupCommit {
  private queue: Queued[] = [];
  private lastGroupSize = 0;
  /** Groups committed in this turn of the event loop (reset by an immediate). */
  private commitsThisTurn = 0;
  private readonly newTurn = (): void => {
    this.commitsThisTurn = 0;
  };
  private commits = 0;
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  private readonly commitOne: (write: () => unknown) => unknown;
  private readonly commitTogether: (group: readonly Queued[]) => unknown[];
  private readonly commitIsolated: (group: readonly Queued[]) => { ok: boolean; value: unknown }[];

  /**
   * `busy.then` runs once, at the `busy.after`-th commit: a store that writes that much is
   * serving load (the store starts its background checkpoints then).
   */
  constructor(
    private readonly database: BetterSqlite3.Database,
    private readonly busy?: { after: number; then: () => void },
  ) {
    const savepoint = database.transaction((write: () => unknown) => write());
    this.commitOne = savepoint;
    this.commitTogether = database.transaction((group: readonly Queued[]) =>
      group.map((queued) => queued.write()),
    );
    this.commitIsolated = database.transaction((group: readonly Queued[]) =>
      group.map((queued) => {
        try {
          return { ok: true, value: savepoint(queued.write) };
        } catch (error) {
          return { ok: false, value: error };
        }
      }),
    );
  }

  /** Runs `write` (synchronous statements) in the next group; resolves with what it returned. */
  run<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ write, resolve: resolve as (value: unknown) => void, reject });
      if (this.queue.length > 1) return;
      // Quiet (the last group was one write): commit once the promise jobs queued now have run,
      // adding no turn of the event loop. Busy: wait for the turn's I/O callbacks, whose writes
      // then share the commit. Many groups of one write in one turn are load too (one write per
      // I/O callback would otherwise keep every group at one write); a run journaling its steps
      // one after the other in one turn waits a turn only once every TURN_GROUPS steps.
      if (this.lastGroupSize > 1 || this.commitsThisTurn >= TURN_GROUPS) {
        setImmediate(() => void this.commit());
      } else process.nextTick(() => void this.commit());
    });
  }

  /**
   * Runs one statement (prepared once per text) inside a write of {@link run}; returns the rows
   * it changed, or for a statement with `RETURNING`, the rows it returned.
   */
  affected(text: string, parameters: readonly unknown[]): number {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.database.prepare(text);
      this.statements.set(text, statement);
    }
    return statement.reader
      ? statement.all(...parameters).length
      : statement.run(...parameters).changes;
  }

  /**
   * Commits a group: first all writes back to back (a savepoint per write costs two statements
   * each); when one throws, that transaction is rolled back whole and the group runs again with
   * a savepoint per write, so that only the failing write fails.
   */
  private commitGroup(group: readonly Queued[]): { ok: boolean; value: unknown }[] {
    try {
      return this.commitTogether(group).map((value) => ({ ok: true, value }));
    } catch {
      return this.commitIsolated(group);
    }
  }

  private async commit(): Promise<void> {
    while (this.database.inTransaction) await new Promise((resolve) => setImmediate(resolve));
    let group = this.queue;
    if (group.length > MAX_GROUP_WRITES) {
      // The rest waits for the next turn: the I/O callbacks ready meanwhile run first.
      group = this.queue.splice(0, MAX_GROUP_WRITES);
      setImmediate(() => void this.commit());
    } else this.queue = [];
    if (group.length === 0) return;
    this.lastGroupSize = group.length;
    if (this.commitsThisTurn++ === 0) setImmediate(this.newTurn);
    if (++this.commits === this.busy?.after) this.busy.then();
    if (group.length === 1) {
      // Alone, a write needs no savepoint: its transaction is its own.
      const [only] = group as [Queued];
      try {
        only.resolve(this.commitOne(only.write));
      } catch (error) {
        only.reject(asStoreError(error));
      }
      return;
    }
    let results: { ok: boolean; value: unknown }[];
    try {
      results = this.commitGroup(group);
    } catch (error) {
      // The commit itself failed (disk full, I/O error): nothing of the group was written.
      for (const queued of group) queued.reject(asStoreError(error));
      return;
    }
    group.forEach((queued, i) => {
      const result = results[i]!;
      if (result.ok) queued.resolve(result.value);
      else queued.reject(asStoreError(result.value));
    });
  }
}
