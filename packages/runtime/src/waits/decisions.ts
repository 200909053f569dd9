import {
  CanceledError,
  NotFoundError,
  TimeoutError,
  type StoredExecution,
  type WaitingFor,
} from '@weft/core';
import { endStored } from '../executions/end-stored.js';
import type { RuntimeParts } from '../runtime-parts.js';
import { TOOL_CALL_WAIT } from './tool-calls.js';
import { deadlineOf, waitEvents } from './wait-events.js';

/** Which waiting execution a decision is about. */
export interface WaitTarget {
  /** Only an execution of this owner (another's is `NOT_FOUND`, like an unknown id). */
  owner?: string;
  /** Only while it waits for this kind (`approval`); another kind loses. */
  kind?: string;
}

/** A decision to let a waiting execution run (`approval.granted`). */
export interface WaitResume extends WaitTarget {
  /** Data of its `<kind>.granted` event (`approved_by`, `comment`). */
  data?: Record<string, unknown>;
  /**
   * Fields added to its `waiting_for` in the same write (a tool call's `decision`, which the
   * resumed run reads), and the phase of its event (default `granted`).
   */
  record?: Record<string, unknown>;
  phase?: 'granted' | 'rejected';
}

/** A decision to end a waiting execution `canceled` (`approval.rejected`). */
export interface WaitRejection extends WaitTarget {
  /** Message of its `CANCELED` error. Default: "the execution was rejected". */
  message?: string;
  /**
   * Details of its `CANCELED` error beside `canceled_at` (`rejected_by`, `comment`), also the
   * data of its `<kind>.rejected` event.
   */
  details?: Record<string, unknown>;
}

/**
 * What a decision did: `won` when this call decided (exactly one of concurrent decisions, on
 * any replica, does); otherwise the execution did not wait (for that kind) any more, and the
 * caller answers `409 CONFLICT`. `execution` is the record after the decision.
 */
export interface WaitDecision {
  won: boolean;
  execution: StoredExecution;
}

/**
 * Decides waiting executions: resumes them (any replica then claims and runs them from their
 * journal; this one tries first), rejects them, expires them. Each decision is one conditional
 * write of the store.
 */
export class WaitDecisions {
  constructor(
    private readonly parts: RuntimeParts,
    /** Learns the deadline (ms) of each wait this replica decided. */
    private readonly onDecided: (deadline: number) => void = () => {},
  ) {}

  /** See {@link Runtime.resumeExecution}. */
  async resume(id: string, decision: WaitResume = {}): Promise<WaitDecision> {
    const { store, clock, onError } = this.parts.options;
    const execution = await this.target(id, decision);
    const waiting = waitingFor(execution, decision.kind);
    if (!waiting) return { won: false, execution };
    const at = new Date(clock.now()).toISOString();
    const seq = (await store.lastEventSeq(id)) + 1;
    const phase = decision.phase ?? 'granted';
    const events = waitEvents(execution, waiting.kind, phase, decision.data ?? {}, at, seq);
    const won = await store.resume(
      id,
      events,
      decision.record ? { ...waiting, ...decision.record } : undefined,
    );
    this.parts.worker.hub.notify(id);
    if (won) {
      this.decided(waiting);
      this.parts.worker
        .launch(id)
        .catch((error: unknown) => onError(error, `running resumed execution ${id}`));
    }
    return { won, execution: (await store.get(id)) ?? execution };
  }

  /** See {@link Runtime.endWaiting}. */
  async reject(id: string, rejection: WaitRejection = {}): Promise<WaitDecision> {
    const execution = await this.target(id, rejection);
    const waiting = waitingFor(execution, rejection.kind);
    if (!waiting) return { won: false, execution };
    const now = this.parts.options.clock.now();
    const at = new Date(now).toISOString();
    const details = rejection.details ?? {};
    const won = await endStored(this.parts, execution, {
      status: 'canceled',
      error: new CanceledError(rejection.message ?? 'the execution was rejected', {
        ...details,
        canceled_at: at,
      }),
      at: now,
      events: (seq) => waitEvents(execution, waiting.kind, 'rejected', details, at, seq),
      waiting: {},
    });
    if (won) this.decided(waiting);
    const after = await this.parts.options.store.get(id);
    return { won, execution: after ?? execution };
  }

  /**
   * Ends execution `id` `failed` with `TIMEOUT` when it still waits at `now` (ms) and its
   * deadline is not after it, and gives it as it was (waiting); undefined otherwise.
   */
  async expire(id: string, now: number): Promise<StoredExecution | undefined> {
    const execution = await this.parts.options.store.get(id);
    const waiting = execution && waitingFor(execution);
    if (!execution || !waiting || waiting.expires_at === null) return undefined;
    if (waiting.kind === TOOL_CALL_WAIT) {
      // A tool call nobody decided in time is rejected: the model is told, the run goes on.
      if (Date.parse(waiting.expires_at) > now) return undefined;
      const { won } = await this.resume(id, {
        kind: TOOL_CALL_WAIT,
        phase: 'rejected',
        data: { tool: waiting['tool'], reason: 'expired' },
        record: { decision: { verdict: 'reject', by: 'expired', reason: 'expired' } },
      });
      return won ? execution : undefined;
    }
    const since = Date.parse(waiting.since);
    const timeout = Date.parse(waiting.expires_at) - since;
    const ended = await endStored(this.parts, execution, {
      status: 'failed',
      error: new TimeoutError(
        `nothing resumed the execution within its ${waiting.kind} timeout of ${timeout} ms`,
        { timeout_ms: timeout, elapsed_ms: Math.max(0, now - since), waiting_for: waiting.kind },
      ),
      at: now,
      waiting: { expiredBy: now },
    });
    return ended ? execution : undefined;
  }

  private decided(waiting: WaitingFor): void {
    const deadline = deadlineOf(waiting);
    if (deadline !== undefined) this.onDecided(deadline);
  }

  /** The execution a decision is about; `NOT_FOUND` when unknown (or another owner's). */
  private async target(id: string, target: WaitTarget): Promise<StoredExecution> {
    const execution = await this.parts.options.store.get(id);
    if (!execution || (target.owner !== undefined && execution.owner !== target.owner)) {
      throw new NotFoundError(`no execution ${id}`, { execution_id: id });
    }
    return execution;
  }
}

/** What `execution` waits for now (of `kind`, when given); undefined when it does not wait. */
function waitingFor(execution: StoredExecution, kind?: string): WaitingFor | undefined {
  const waiting = execution.status === 'waiting' ? execution.waiting_for : undefined;
  return waiting && (kind === undefined || waiting.kind === kind) ? waiting : undefined;
}
