import { randomUUID } from 'node:crypto';
import pLimit, { type LimitFunction } from 'p-limit';
import {
  EnvironmentSecretsProvider,
  replicaWorkerId,
  type ExecutionLease,
  type StoredExecution,
} from '@weft/core';
import type { JournaledStep } from '@weft/engine';
import type { RunSpan, TraceCarrier } from '@weft/telemetry';
import type { CompiledRuntimeOptions } from '../options.js';
import type { ExecutableWorkflow } from './definition.js';
import { ExecutionHub } from './hub.js';
import { runClaimed, type ActiveRun } from './run-claimed.js';

/** Why a local run stopped without ending its execution. */
export type Detach = 'shutdown' | 'lost';

/**
 * Runs executions in this process: claims them with a lease (renewed while they run), runs at
 * most `maxConcurrent` at once, finds pending ones and expired leases (another server died) and
 * takes them over, resuming each from its journal.
 */
export class ExecutionWorker {
  /** The lease holder of this process: `<replica>#<uuid>` when the replica is named. */
  readonly id: string;
  readonly hub = new ExecutionHub();
  /** Learns the deadline (ms) of a wait a run of this worker started (the runtime's timer). */
  onWait: (deadline: number) => void = () => {};
  private readonly active = new Map<string, ActiveRun>();
  private readonly queued = new Map<string, Promise<StoredExecution | undefined>>();
  private readonly limit: LimitFunction;
  private timers: NodeJS.Timeout[] = [];
  private closing = false;
  private readonly emptySecrets = new EnvironmentSecretsProvider({});

  constructor(
    private readonly options: CompiledRuntimeOptions,
    private readonly onEnded: (execution: StoredExecution, trace?: TraceCarrier) => void,
  ) {
    this.limit = pLimit(options.maxConcurrent);
    this.id =
      options.replica === undefined
        ? `worker-${randomUUID()}`
        : replicaWorkerId(options.replica, randomUUID());
  }

  /** Takes over unfinished executions and starts the lease and sweep timers. */
  async start(): Promise<void> {
    const { leaseMs, sweepMs, takeOverOnStart, replica, store } = this.options;
    if (replica !== undefined && !takeOverOnStart) {
      // Started again under its name, this replica's old process is gone: what it held runs
      // now (the first sweep claims it) instead of after the old leases run out.
      try {
        await store.releaseReplicaLeases(replica, this.id);
      } catch (error) {
        this.options.onError(error, 'taking back the leases of this replica');
      }
    }
    await this.sweep(takeOverOnStart ? Number.MAX_SAFE_INTEGER : this.options.clock.now());
    const renew = setInterval(() => void this.renew(), Math.max(50, leaseMs / 3));
    const sweep = setInterval(() => void this.sweep(this.options.clock.now()), sweepMs);
    renew.unref();
    sweep.unref();
    this.timers = [renew, sweep];
  }

  /**
   * Runs execution `id` here when it can be claimed; resolves with how it ended (undefined when
   * another server has it, or it stopped here without ending). `executable`: its workflow, when
   * this process has it already (its compiled plan is then reused).
   */
  launch(
    id: string,
    now = this.options.clock.now(),
    executable?: ExecutableWorkflow,
    trace?: RunSpan,
  ): Promise<StoredExecution | undefined> {
    const known = this.queued.get(id);
    if (known) {
      trace?.end('elsewhere');
      return known;
    }
    const run = this.limit(() => this.claimAndRun(id, now, executable, trace)).finally(() =>
      this.queued.delete(id),
    );
    this.queued.set(id, run);
    return run;
  }

  /**
   * The lease to store a new execution with when this worker can run it at once (a free run
   * slot, not closing): {@link runNew} then runs it without a claim, saving a write. Undefined
   * otherwise: store it pending and {@link launch} it.
   */
  leaseForNew(): ExecutionLease | undefined {
    if (this.closing || this.limit.activeCount + this.limit.pendingCount >= this.limit.concurrency)
      return undefined;
    return { worker: this.id, until: this.options.clock.now() + this.options.leaseMs };
  }

  /**
   * Runs an execution stored under a lease of {@link leaseForNew} from `journal` (the steps it
   * was stored with: a resumed execution's); resolves like {@link launch}.
   */
  runNew(
    execution: StoredExecution,
    executable: ExecutableWorkflow,
    trace?: RunSpan,
    journal: JournaledStep[] = [],
  ): Promise<StoredExecution | undefined> {
    const run = this.limit(() =>
      this.closing ? undefined : this.run(execution, executable, journal, 0, trace),
    ).finally(() => {
      trace?.end('detached');
      this.queued.delete(execution.id);
    });
    this.queued.set(execution.id, run);
    return run;
  }

  /** The local run of `id`, when it runs here. */
  running(id: string): ActiveRun | undefined {
    return this.active.get(id);
  }

  /** Stops timers and detaches the runs in flight: their executions resume elsewhere or later. */
  async close(): Promise<void> {
    this.closing = true;
    for (const timer of this.timers) clearInterval(timer);
    const runs = [...this.active.values()];
    for (const run of runs) run.detach('shutdown');
    await Promise.allSettled(runs.map((r) => r.done));
    const ids = [...new Set([...runs.map((r) => r.id), ...this.queued.keys()])];
    if (ids.length > 0) await this.options.store.renew(this.id, ids, 0).catch(() => {});
  }

  private async claimAndRun(
    id: string,
    now: number,
    executable: ExecutableWorkflow | undefined,
    trace: RunSpan | undefined,
  ): Promise<StoredExecution | undefined> {
    // A run that does not happen here ends the span started for it (no-op once it ran).
    if (this.closing) {
      trace?.end('detached');
      return undefined;
    }
    const { store, clock, leaseMs } = this.options;
    const startedAt = new Date(clock.now()).toISOString();
    const claimed = await store.claim(id, this.id, now, clock.now() + leaseMs, startedAt);
    if (!claimed) {
      trace?.end('elsewhere');
      return undefined;
    }
    // Started by this claim, never waited (a resumed wait has events already) and not seeded
    // with another execution's steps (a rerun from a step): no journal.
    const fresh =
      claimed.started_at === startedAt &&
      claimed.waiting_for === undefined &&
      claimed.resumed_from === undefined;
    const journal: JournaledStep[] = fresh
      ? []
      : (await store.steps(id)).map((row) => JSON.parse(row.json) as JournaledStep);
    const seq = fresh ? 0 : await store.lastEventSeq(id);
    return this.run(claimed, executable, journal, seq, trace);
  }

  /** Runs a claimed execution from its journal (`journal`, events up to `seq`) to its end. */
  private async run(
    claimed: StoredExecution,
    executable: ExecutableWorkflow | undefined,
    journal: JournaledStep[],
    seq: number,
    trace?: RunSpan,
  ): Promise<StoredExecution | undefined> {
    const run = runClaimed(claimed, executable, journal, seq, {
      options: this.options,
      hub: this.hub,
      secrets: this.options.secrets ?? this.emptySecrets,
      trace,
      worker: this.id,
      onWait: (deadline) => this.onWait(deadline),
    });
    this.active.set(claimed.id, run);
    try {
      const ended = await run.done;
      if (ended) this.onEnded(ended, run.trace);
      return ended;
    } finally {
      this.active.delete(claimed.id);
    }
  }

  private async renew(): Promise<void> {
    // Queued runs of this worker hold leases too (those stored by runNew wait for a slot).
    const ids = [...new Set([...this.active.keys(), ...this.queued.keys()])];
    if (ids.length === 0) return;
    try {
      const until = this.options.clock.now() + this.options.leaseMs;
      const lost = await this.options.store.renew(this.id, ids, until);
      for (const id of lost) this.active.get(id)?.detach('lost');
    } catch (error) {
      this.options.onError(error, 'renewing execution leases');
    }
  }

  private async sweep(now: number): Promise<void> {
    if (this.closing) return;
    try {
      const ids = await this.options.store.claimable(now, 100);
      for (const id of ids) {
        if (this.active.has(id) || this.queued.has(id)) continue;
        this.launch(id, now).catch((error: unknown) =>
          this.options.onError(error, `running execution ${id}`),
        );
      }
    } catch (error) {
      this.options.onError(error, 'looking for executions to run');
    }
  }
}
