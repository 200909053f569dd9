import type { AuditStore, Clock, EndedQuery, ExecutionsStore } from '@weft/core';
import type { WeftMetrics } from '@weft/telemetry';

const DAY_MS = 86_400_000;

/** A workflow whose ended executions are kept for a time of their own. */
export interface RetentionOverride {
  owner: string;
  workflow: string;
  days: number;
}

/** How long ended executions and audit entries are kept (docs/runtime.md#retention). */
export interface RetentionOptions {
  /** Days ended executions are kept (`WEFT_RETENTION_DAYS`); undefined: forever. */
  executionDays?: number | undefined;
  /** Days audit entries are kept (`WEFT_AUDIT_RETENTION_DAYS`); undefined: forever. */
  auditDays?: number | undefined;
  /** Workflows with a retention of their own (deployed `execution.retention_days`). */
  overrides?: () => Promise<readonly RetentionOverride[]>;
  /** Rows deleted per transaction. Default 500. */
  batchSize?: number;
  /** Pause between two batches, in ms: the hot path gets the database in between. Default 200. */
  pauseMs?: number;
  /** Time between two passes, in ms. Default one hour. */
  intervalMs?: number;
  /** Time from start to the first pass, in ms. Default one minute. */
  firstPassMs?: number;
}

/** What one pass deleted. */
export interface RetentionPass {
  executions: number;
  steps: number;
  events: number;
  audit_entries: number;
}

/** What the sweeper works on. */
export interface RetentionParts {
  executions: ExecutionsStore;
  audit: AuditStore;
  clock: Pick<Clock, 'now'>;
  metrics?: WeftMetrics | undefined;
  onError: (error: unknown, context: string) => void;
}

/**
 * Deletes what is older than its retention, in the background: ended executions (with their
 * journal and events) per workflow override, then the rest by the default, then audit entries.
 * Each batch is one short transaction of at most `batchSize` rows, followed by a pause, so a
 * pass over a long history never holds the database for long; a pass stops at the first batch
 * that finds less than a full one. Replicas sharing a database may all run it: deleting what
 * another already deleted changes nothing.
 */
export class RetentionSweeper {
  private timer: NodeJS.Timeout | undefined;
  private closing = false;
  private running: Promise<RetentionPass> | undefined;
  private readonly batchSize: number;
  private readonly pauseMs: number;

  constructor(
    private readonly options: RetentionOptions,
    private readonly parts: RetentionParts,
  ) {
    this.batchSize = options.batchSize ?? 500;
    this.pauseMs = options.pauseMs ?? 200;
  }

  /** True when anything is ever deleted (a default or overrides). */
  get enabled(): boolean {
    const { executionDays, auditDays, overrides } = this.options;
    return executionDays !== undefined || auditDays !== undefined || overrides !== undefined;
  }

  /** Schedules the passes (the first after `firstPassMs`). */
  start(): void {
    if (!this.enabled || this.timer) return;
    const next = (delay: number) => {
      this.timer = setTimeout(() => {
        void this.runOnce().finally(() => {
          if (!this.closing) next(this.options.intervalMs ?? 3_600_000);
        });
      }, delay);
      this.timer.unref();
    };
    next(this.options.firstPassMs ?? 60_000);
  }

  /** Stops scheduling and waits for a pass in progress to stop after its current batch. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** Runs one pass now (or joins the one running); resolves with what it deleted. */
  runOnce(): Promise<RetentionPass> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(): Promise<RetentionPass> {
    const deleted: RetentionPass = { executions: 0, steps: 0, events: 0, audit_entries: 0 };
    const { executionDays, auditDays } = this.options;
    const now = this.parts.clock.now();
    const before = (days: number) => new Date(now - days * DAY_MS).toISOString();
    try {
      const overrides = (await this.options.overrides?.()) ?? [];
      for (const { owner, workflow, days } of overrides) {
        await this.drainExecutions({ before: before(days), only: { owner, workflow } }, deleted);
      }
      if (executionDays !== undefined) {
        const except = overrides.map(({ owner, workflow }) => ({ owner, workflow }));
        await this.drainExecutions({ before: before(executionDays), except }, deleted);
      }
      if (auditDays !== undefined) await this.drainAudit(before(auditDays), deleted);
    } catch (error) {
      this.parts.onError(error, 'deleting executions and audit entries past their retention');
    }
    return deleted;
  }

  private async drainExecutions(
    query: Omit<EndedQuery, 'limit'>,
    deleted: RetentionPass,
  ): Promise<void> {
    for (;;) {
      if (this.closing) return;
      const batch = await this.parts.executions.deleteEnded({ ...query, limit: this.batchSize });
      deleted.executions += batch.executions;
      deleted.steps += batch.steps;
      deleted.events += batch.events;
      this.count('executions', batch.executions);
      this.count('steps', batch.steps);
      this.count('events', batch.events);
      if (batch.executions < this.batchSize) return;
      await this.pause();
    }
  }

  private async drainAudit(before: string, deleted: RetentionPass): Promise<void> {
    for (;;) {
      if (this.closing) return;
      const count = await this.parts.audit.prune(before, this.batchSize);
      deleted.audit_entries += count;
      this.count('audit_entries', count);
      if (count < this.batchSize) return;
      await this.pause();
    }
  }

  private count(kind: keyof RetentionPass, n: number): void {
    if (n > 0) this.parts.metrics?.retentionDeleted(kind, n);
  }

  private pause(): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, this.pauseMs).unref());
  }
}
