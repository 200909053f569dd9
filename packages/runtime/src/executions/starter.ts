import {
  ConflictError,
  ValidationError,
  type ActionCall,
  type CreateOutcome,
  type StoredExecution,
} from '@weft/core';
import { resolveInputs, type JournaledStep } from '@weft/engine';
import { authorizeStart } from '../authorization/start-check.js';
import type { RuntimeParts } from '../runtime-parts.js';
import { checkWait, deadlineOf } from '../waits/wait-events.js';
import { newStart, stampStart, type ExecutionRequest, type NewStart } from './new-start.js';
import { actionTargets } from './targets.js';

/** Executions checked and built by {@link ExecutionStarter.prepare}, not stored yet. */
export interface PreparedExecutions {
  /** Stores them now; each succeeds or fails alone. */
  commit(): Promise<PromiseSettledResult<StartedExecution>[]>;
}

/** What {@link Runtime.startExecution} did. */
export interface StartedExecution {
  execution: StoredExecution;
  /** False when the idempotency key named an execution created before. */
  created: boolean;
  /** Resolves when this process's run of it ends (undefined: it did not run here, or waits). */
  done: Promise<StoredExecution | undefined>;
}

/**
 * Starts executions: checks a request (inputs, action targets, callback URL, wait), stores the
 * new execution (running under this worker's lease when it has a free slot, else pending, or
 * waiting) and runs it here. `onWait` learns the deadline of each new waiting execution.
 */
export class ExecutionStarter {
  constructor(
    private readonly parts: RuntimeParts,
    private readonly onWait: (deadline: number) => void,
  ) {}

  /** See {@link Runtime.startExecution}. */
  async start(request: ExecutionRequest): Promise<StartedExecution> {
    const { options, worker } = this.parts;
    const { inputs, checked } = await this.check(request, (targets) => this.checkTargets(targets));
    const lease = checked.wait ? undefined : worker.leaseForNew();
    const start = newStart(checked, inputs, options.clock.now(), lease, options.tracing);
    let outcome: CreateOutcome;
    try {
      outcome = await options.store.create(
        start.stored,
        start.claim,
        start.lease,
        start.events,
        start.journal,
        request.awaitsEnd === true,
      );
    } catch (error) {
      start.runSpan?.end('not_stored');
      throw error;
    }
    if (!outcome.created) return this.existing(outcome, start);
    return { execution: start.execution, created: true, done: this.run(start) };
  }

  /** See {@link Runtime.prepareExecutions}. */
  async prepare(requests: readonly ExecutionRequest[]): Promise<PreparedExecutions> {
    // Requests that call the same plugins need one look at them.
    const checks = new Map<string, Promise<void>>();
    const checkOnce = (targets: readonly ActionCall['target'][]): Promise<void> => {
      const key = targets.map((t) => (t.kind === 'plugin' ? t.slug : t.ref)).join('\n');
      let check = checks.get(key);
      if (!check) checks.set(key, (check = this.checkTargets(targets)));
      return check;
    };
    const { clock } = this.parts.options;
    const prepared = await Promise.allSettled(
      requests.map(async (request) => {
        const { inputs, checked } = await this.check(request, checkOnce);
        const lease = checked.wait ? undefined : this.parts.worker.leaseForNew();
        return newStart(checked, inputs, clock.now(), lease, this.parts.options.tracing);
      }),
    );
    return { commit: () => this.commit(prepared) };
  }

  /**
   * Checks a request: its caller's authorization first (`FORBIDDEN`, audited), then what it
   * needs (`VALIDATION`). Gives its inputs and the request to store: with the approval wait its
   * workflow asks for.
   */
  private async check(
    request: ExecutionRequest,
    checkTargets: (targets: readonly ActionCall['target'][]) => Promise<void>,
  ): Promise<{ inputs: Record<string, unknown>; checked: ExecutionRequest }> {
    const approval = await authorizeStart(request, this.parts.options.audit);
    const checked = approval && !request.wait ? { ...request, wait: approval } : request;
    const inputs = resolveInputs(request.workflow, request.inputs ?? {});
    if (checked.wait) checkWait(checked.wait);
    await checkTargets(actionTargets(request.workflow, request.library ?? [request.workflow]));
    if (request.callbackUrl !== undefined) await this.parts.egress.check(request.callbackUrl);
    return { inputs, checked };
  }

  private async commit(
    prepared: readonly PromiseSettledResult<NewStart>[],
  ): Promise<PromiseSettledResult<StartedExecution>[]> {
    const { store, clock } = this.parts.options;
    const now = clock.now();
    const outcomes = await Promise.allSettled(
      prepared.map((result) => {
        if (result.status === 'rejected') return Promise.reject(result.reason as Error);
        const start = result.value;
        stampStart(start, now);
        return store.create(start.stored, start.claim, start.lease, start.events, start.journal);
      }),
    );
    const runs: (() => void)[] = [];
    const results = outcomes.map((outcome, i): PromiseSettledResult<StartedExecution> => {
      const settled = prepared[i]!;
      if (outcome.status === 'rejected') {
        if (settled.status === 'fulfilled') settled.value.runSpan?.end('not_stored');
        return outcome;
      }
      const start = (settled as PromiseFulfilledResult<NewStart>).value;
      if (!outcome.value.created) {
        try {
          return { status: 'fulfilled', value: this.existing(outcome.value, start) };
        } catch (error) {
          return { status: 'rejected', reason: error };
        }
      }
      // A waiting one only has its deadline noted: at once.
      const done = start.wait
        ? this.run(start)
        : new Promise<StoredExecution | undefined>((resolve) =>
            runs.push(() => resolve(this.run(start))),
          );
      return { status: 'fulfilled', value: { execution: start.execution, created: true, done } };
    });
    setImmediate(() => {
      for (const begin of runs) begin();
    });
    return results;
  }

  /** Throws `VALIDATION` when a plugin the workflow calls is neither published nor registered. */
  private async checkTargets(targets: readonly ActionCall['target'][]): Promise<void> {
    const { actions } = this.parts.options;
    if (targets.length === 0 || !actions.unavailable) return;
    const unavailable = await actions.unavailable(targets);
    if (unavailable.length > 0) {
      throw new ValidationError(
        `plugins must be published or registered to run on the server; not found: ${unavailable.join(', ')}`,
        { field: 'workflow', constraint: 'plugins_available', unavailable },
      );
    }
  }

  /** The answer when the idempotency key named an execution created before. */
  private existing(outcome: CreateOutcome & { created: false }, start: NewStart): StartedExecution {
    start.runSpan?.end('replayed');
    if (outcome.fingerprint !== start.claim!.fingerprint) {
      throw new ConflictError(
        `idempotency_key "${start.claim!.key}" was used for a different request; use a new key`,
        { field: 'idempotency_key', execution_id: outcome.execution.id },
      );
    }
    return { ...outcome, done: Promise.resolve(undefined) };
  }

  /**
   * Runs a stored new execution here (at once under its lease, or after claiming it); a
   * waiting one only has its deadline noted.
   */
  private run(start: NewStart): Promise<StoredExecution | undefined> {
    const { worker, options } = this.parts;
    const waiting = start.stored.waiting_for;
    if (waiting) {
      // Its span ends here; the run after the approval is a child of it.
      start.runSpan?.end('waiting');
      const deadline = deadlineOf(waiting);
      if (deadline !== undefined) this.onWait(deadline);
      return Promise.resolve(undefined);
    }
    const done = start.lease
      ? worker.runNew(start.stored, start.executable, start.runSpan, journalOf(start))
      : worker.launch(start.execution.id, undefined, start.executable, start.runSpan);
    done.catch((error: unknown) => options.onError(error, `running ${start.execution.id}`));
    return done;
  }
}

/** The journal a new execution starts from (empty unless it resumes another). */
function journalOf(start: NewStart): JournaledStep[] {
  return start.journal.map((row) => JSON.parse(row.json) as JournaledStep);
}
