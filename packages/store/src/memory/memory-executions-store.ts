import {
  CLAIMABLE_STATUSES,
  UNFINISHED_STATUSES,
  WORKER_INCARNATION_LENGTH,
  type CallbackAttempt,
  type CallbackState,
  type CreateOutcome,
  type DeletedExecutions,
  type EndedQuery,
  type EndWrites,
  type EventRow,
  type ExecutionLease,
  type ExecutionOutcome,
  type ExecutionQuery,
  type ExecutionStats,
  type ExecutionStatsQuery,
  type ExecutionsStore,
  type IdempotencyClaim,
  type JournalRow,
  type StoredExecution,
  type UsageDelta,
  type UsageRow,
  type WaitingFor,
} from '@weft/core';
import { deadlineOf } from '../executions-rows.js';
import { ExecutionsBook, order } from './memory-executions-book.js';
import { copyOf, type Log, type Row } from './memory-executions-row.js';
import { statsOf } from './memory-executions-stats.js';

/**
 * {@link ExecutionsStore} in process memory: one process, nothing kept across restarts. It
 * passes the same contract suites as SQLite and PostgreSQL, so tests of the runtime can run on
 * it without opening a database each. Records are copied in and out as the databases copy them
 * through JSON, so a caller never shares an object with the store.
 */
export class MemoryExecutionsStore implements ExecutionsStore {
  readonly kind = 'memory';
  /** By id, in creation order (the order a database's scans fall back to). */
  private readonly rows = new Map<string, Row>();
  /** Journals by execution id (kept apart: a journal write never checks that its execution exists). */
  private readonly logs = new Map<string, Log>();
  /** Execution id by `<key_id>\0<idempotency key>`, with the request's fingerprint. */
  private readonly idempotency = new Map<string, { id: string; fingerprint: string }>();
  /** Callbacks, usage and secrets: the bookkeeping beside the records. */
  private readonly book = new ExecutionsBook();

  async create(
    execution: StoredExecution,
    idempotency?: IdempotencyClaim,
    lease?: ExecutionLease,
    events: readonly EventRow[] = [],
    steps: readonly JournalRow[] = [],
  ): Promise<CreateOutcome> {
    const claimKey = idempotency && `${idempotency.key_id}\u0000${idempotency.key}`;
    const claimed = claimKey === undefined ? undefined : this.idempotency.get(claimKey);
    if (claimed) {
      const existing = this.rows.get(claimed.id)!;
      return {
        created: false,
        execution: copyOf(existing.execution),
        fingerprint: claimed.fingerprint,
      };
    }
    if (this.rows.has(execution.id)) throw new Error(`execution ${execution.id} already exists`);
    const row: Row = {
      execution: copyOf(execution),
      leaseOwner: lease?.worker ?? null,
      leaseUntil: lease?.until ?? 0,
      waitUntil: deadlineOf(execution.waiting_for),
    };
    this.rows.set(execution.id, row);
    if (claimKey !== undefined) {
      this.idempotency.set(claimKey, { id: execution.id, fingerprint: idempotency!.fingerprint });
    }
    this.append(execution.id, steps, events);
    return { created: true, execution };
  }

  async get(id: string): Promise<StoredExecution | undefined> {
    const row = this.rows.get(id);
    return row && copyOf(row.execution);
  }

  async list(query: ExecutionQuery): Promise<StoredExecution[]> {
    const { owner, status, workflow, trigger, from, to, after } = query;
    return [...this.rows.values()]
      .map((row) => row.execution)
      .filter(
        (e) =>
          (owner === undefined || e.owner === owner) &&
          (!status || e.status === status) &&
          (!workflow || e.workflow === workflow) &&
          (!trigger || e.trigger.type === trigger) &&
          (!from || e.created_at >= from) &&
          (!to || e.created_at < to) &&
          (!after ||
            e.created_at < after.created_at ||
            (e.created_at === after.created_at && e.id < after.id)),
      )
      .sort((a, b) => order(b.created_at, a.created_at) || order(b.id, a.id))
      .slice(0, query.limit)
      .map(copyOf);
  }

  async stats(query: ExecutionStatsQuery): Promise<ExecutionStats> {
    return statsOf(
      [...this.rows.values()]
        .map((row) => row.execution)
        .filter(
          (e) =>
            (query.owner === undefined || e.owner === query.owner) &&
            e.created_at >= query.since &&
            e.created_at < query.until,
        ),
    );
  }

  async claim(
    id: string,
    worker: string,
    now: number,
    leaseUntil: number,
    startedAt: string,
  ): Promise<StoredExecution | undefined> {
    const row = this.rows.get(id);
    const status = row?.execution.status;
    if (!row || !(status === 'pending' || (status === 'running' && row.leaseUntil < now))) {
      return undefined;
    }
    row.execution.status = 'running';
    row.execution.started_at ??= startedAt;
    row.leaseOwner = worker;
    row.leaseUntil = leaseUntil;
    return copyOf(row.execution);
  }

  async claimable(now: number, limit: number): Promise<string[]> {
    return this.claimableRows(now)
      .sort((a, b) => order(a.execution.created_at, b.execution.created_at))
      .slice(0, limit)
      .map((row) => row.execution.id);
  }

  async claimableCount(now: number): Promise<number> {
    return this.claimableRows(now).length;
  }

  private claimableRows(now: number): Row[] {
    return [...this.rows.values()].filter(
      (row) => CLAIMABLE_STATUSES.has(row.execution.status) && row.leaseUntil < now,
    );
  }

  async releaseReplicaLeases(replica: string, current: string): Promise<number> {
    const prefix = `${replica}#`;
    // In characters, as the databases count them: one incarnation after the prefix, so that
    // replica `a` never takes the leases of `a#b`.
    const length = [...prefix].length + WORKER_INCARNATION_LENGTH;
    let released = 0;
    for (const row of this.rows.values()) {
      const owner = row.leaseOwner;
      if (row.execution.status !== 'running' || owner === null || owner === current) continue;
      if (!owner.startsWith(prefix) || [...owner].length !== length) continue;
      row.leaseUntil = 0;
      released++;
    }
    return released;
  }

  async renew(worker: string, ids: readonly string[], leaseUntil: number): Promise<string[]> {
    return ids.filter((id) => {
      const row = this.rows.get(id);
      if (!row || row.leaseOwner !== worker || row.execution.status !== 'running') return true;
      row.leaseUntil = leaseUntil;
      return false;
    });
  }

  async journal(id: string, steps: readonly JournalRow[], events: readonly EventRow[]) {
    this.append(id, steps, events);
  }

  /**
   * Writes steps (a step journaled again replaces the first) and events (an event whose
   * sequence number is taken is dropped), as the databases' journal writes do.
   */
  private append(id: string, steps: readonly JournalRow[], events: readonly EventRow[]): void {
    if (steps.length === 0 && events.length === 0) return;
    let log = this.logs.get(id);
    if (!log) this.logs.set(id, (log = { steps: new Map(), events: new Map() }));
    for (const step of steps) log.steps.set(step.path, step.json);
    for (const event of events)
      if (!log.events.has(event.seq)) log.events.set(event.seq, { ...event });
  }

  async steps(id: string): Promise<JournalRow[]> {
    const steps = this.logs.get(id)?.steps ?? new Map<string, string>();
    return [...steps].map(([path, json]) => ({ path, json }));
  }

  async events(id: string, afterSeq: number, limit: number): Promise<EventRow[]> {
    const events = this.logs.get(id)?.events ?? new Map<number, EventRow>();
    return [...events.values()]
      .filter((event) => event.seq > afterSeq)
      .sort((a, b) => a.seq - b.seq)
      .slice(0, limit)
      .map((event) => ({ ...event }));
  }

  async lastEventSeq(id: string): Promise<number> {
    return Math.max(0, ...(this.logs.get(id)?.events.keys() ?? []));
  }

  async finish(id: string, outcome: ExecutionOutcome, writes: EndWrites): Promise<boolean> {
    const row = this.rows.get(id);
    if (!row || !UNFINISHED_STATUSES.has(row.execution.status)) return false;
    this.end(row, outcome, writes);
    return true;
  }

  async resume(id: string, events: readonly EventRow[], waitingFor?: WaitingFor): Promise<boolean> {
    const row = this.rows.get(id);
    if (row?.execution.status !== 'waiting') return false;
    row.execution.status = 'pending';
    if (waitingFor) row.execution.waiting_for = copyOf(waitingFor);
    row.leaseOwner = null;
    row.leaseUntil = 0;
    this.append(id, [], events);
    return true;
  }

  async suspend(
    id: string,
    worker: string,
    waitingFor: WaitingFor,
    events: readonly EventRow[],
  ): Promise<boolean> {
    const row = this.rows.get(id);
    if (row?.execution.status !== 'running' || row.leaseOwner !== worker) return false;
    row.execution.status = 'waiting';
    row.execution.waiting_for = copyOf(waitingFor);
    row.waitUntil = deadlineOf(waitingFor);
    row.leaseOwner = null;
    row.leaseUntil = 0;
    this.append(id, [], events);
    return true;
  }

  async endWaiting(
    id: string,
    outcome: ExecutionOutcome,
    writes: EndWrites,
    expiredBy?: number,
  ): Promise<boolean> {
    const row = this.rows.get(id);
    if (row?.execution.status !== 'waiting') return false;
    // Like `wait_until <= ?` in SQL: a wait without a deadline never expires.
    if (expiredBy !== undefined && (row.waitUntil === null || row.waitUntil > expiredBy)) {
      return false;
    }
    this.end(row, outcome, writes);
    return true;
  }

  async nextWaitDeadline(): Promise<number | undefined> {
    const deadlines = this.waitingRows().map((row) => row.waitUntil!);
    return deadlines.length === 0 ? undefined : Math.min(...deadlines);
  }

  async expiredWaits(now: number, limit: number): Promise<string[]> {
    return this.waitingRows()
      .filter((row) => row.waitUntil! <= now)
      .sort((a, b) => a.waitUntil! - b.waitUntil!)
      .slice(0, limit)
      .map((row) => row.execution.id);
  }

  /** The waiting executions that have a deadline. */
  private waitingRows(): Row[] {
    return [...this.rows.values()].filter(
      (row) => row.execution.status === 'waiting' && row.waitUntil !== null,
    );
  }

  private end(row: Row, outcome: ExecutionOutcome, { events, steps = [], usage }: EndWrites) {
    Object.assign(row.execution, copyOf(outcome));
    row.leaseOwner = null;
    this.append(row.execution.id, steps, events);
    if (usage) this.book.addUsage(usage.keyId, usage.owner, usage.date, usage.delta);
  }

  async recordCallback(id: string, attempt: CallbackAttempt, state: CallbackState) {
    this.book.recordCallback(id, attempt);
    const row = this.rows.get(id);
    if (row) row.execution.callback = copyOf(state);
  }

  async callbackAttempts(id: string): Promise<CallbackAttempt[]> {
    return this.book.callbackAttempts(id);
  }

  async pendingCallbacks(limit: number): Promise<string[]> {
    return [...this.rows.values()]
      .map((row) => row.execution)
      .filter((e) => !UNFINISHED_STATUSES.has(e.status) && e.callback?.status === 'pending')
      .slice(0, limit)
      .map((e) => e.id);
  }

  async addUsage(keyId: string, owner: string, date: string, delta: UsageDelta): Promise<void> {
    this.book.addUsage(keyId, owner, date, delta);
  }

  async usage(owner: string, sinceDate: string): Promise<UsageRow[]> {
    return this.book.usage(owner, sinceDate);
  }

  async signingSecret(keyId: string, generate: () => string): Promise<string> {
    return this.book.signingSecret(keyId, generate);
  }

  async deleteEnded(query: EndedQuery): Promise<DeletedExecutions> {
    const deleted: DeletedExecutions = { executions: 0, steps: 0, events: 0 };
    if (query.limit <= 0) return deleted;
    const { before, only, except = [] } = query;
    const gone = [...this.rows.values()]
      .map((row) => row.execution)
      .filter(
        (e) =>
          !UNFINISHED_STATUSES.has(e.status) &&
          e.finished_at !== null &&
          e.finished_at < before &&
          (!only || (e.owner === only.owner && e.workflow === only.workflow)) &&
          !except.some((x) => e.owner === x.owner && e.workflow === x.workflow),
      )
      .sort((a, b) => order(a.finished_at!, b.finished_at!))
      .slice(0, query.limit)
      .map((e) => e.id);
    for (const id of gone) {
      const log = this.logs.get(id);
      deleted.executions++;
      deleted.steps += log?.steps.size ?? 0;
      deleted.events += log?.events.size ?? 0;
      this.rows.delete(id);
      this.logs.delete(id);
      this.book.forget(id);
    }
    const ids = new Set(gone);
    for (const [key, claim] of this.idempotency)
      if (ids.has(claim.id)) this.idempotency.delete(key);
    return deleted;
  }

  async close(): Promise<void> {}
}
