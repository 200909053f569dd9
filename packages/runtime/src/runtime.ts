import { createHash, randomUUID } from 'node:crypto';
import {
  BackendError,
  CanceledError,
  TimeoutError,
  WeftError,
  type ActionCall,
  type ExecutionContext,
  type ExecutionOutcome,
  ConflictError,
  FINISHED_STATUSES,
  NotFoundError,
  timeOrderedId,
  toErrorObject,
  ValidationError,
  type CreateOutcome,
  type ExecutionLease,
  type ExecutionTrigger,
  type IdempotencyClaim,
  type StoredExecution,
} from '@weft/core';
import { resolveInputs, type WorkflowDefinition } from '@weft/engine';
import { CallbackEgress } from './callbacks/egress.js';
import { CallbackSender } from './callbacks/deliver.js';
import { pendingCallback } from './executions/record.js';
import { usageOf } from './executions/run-claimed.js';
import { actionTargets } from './executions/targets.js';
import type { ExecutableWorkflow } from './executions/definition.js';
import { ExecutionWorker } from './executions/worker.js';
import {
  compileRuntimeOptions,
  type CompiledRuntimeOptions,
  type RuntimeOptions,
} from './options.js';

/** What {@link Runtime.startExecution} needs: a validated workflow and who runs it. */
export interface ExecutionRequest {
  workflow: WorkflowDefinition;
  /** Workflows its subworkflow steps may call (the rest of its file, deployed workflows). */
  library?: readonly WorkflowDefinition[];
  inputs?: Readonly<Record<string, unknown>>;
  /** What started it: `{type: 'api'}`, `{type: 'webhook', payload}`, `{type: 'event', event}`… */
  trigger: ExecutionTrigger;
  /** Owner who may see it (the key's owner, or the deployment's). */
  owner: string;
  /** The API key that started it, when one did (idempotency and usage are per key). */
  keyId?: string | null;
  callbackUrl?: string;
  /** Idempotency key of the request, with a fingerprint of what was asked. */
  idempotency?: { key: string; fingerprint: string };
}

/** One action to run for a caller (`POST /actions/execute`). */
export interface ActionRequest {
  owner: string;
  keyId: string;
  plugin: string;
  version?: string;
  /** The action name, without the plugin. */
  action: string;
  input: Record<string, unknown>;
  idempotencyKey?: string;
}

/** A checked new execution: its record as answered and as stored, and how it runs here. */
interface NewStart {
  execution: StoredExecution;
  stored: StoredExecution;
  lease: ExecutionLease | undefined;
  claim: IdempotencyClaim | undefined;
  executable: ExecutableWorkflow;
}

/** Executions checked and built by {@link Runtime.prepareExecutions}, not stored yet. */
export interface PreparedExecutions {
  /** Stores them now; each succeeds or fails alone. */
  commit(): Promise<PromiseSettledResult<StartedExecution>[]>;
}

/** What {@link Runtime.startExecution} did. */
export interface StartedExecution {
  execution: StoredExecution;
  /** False when the idempotency key named an execution created before. */
  created: boolean;
  /** Resolves when this process's run of it ends (undefined: it did not run here). */
  done: Promise<StoredExecution | undefined>;
}

/**
 * The runtime (DESIGN.md §4, §5): starts executions, runs them durably (journal, leases,
 * resume), cancels them, and delivers their callbacks. HTTP routes are in `http/`.
 */
export class Runtime {
  readonly options: CompiledRuntimeOptions;
  readonly worker: ExecutionWorker;
  readonly egress: CallbackEgress;
  readonly callbacks: CallbackSender;
  private started = false;

  constructor(options: RuntimeOptions) {
    this.options = compileRuntimeOptions(options);
    this.egress = new CallbackEgress(this.options.egressAllowlist, this.options.lookup);
    this.callbacks = new CallbackSender(this.options, this.egress);
    this.worker = new ExecutionWorker(this.options, (execution) => this.ended(execution));
  }

  /** Resumes unfinished executions and pending callbacks, then keeps looking for work. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.worker.start();
    for (const id of await this.options.store.pendingCallbacks(1000)) {
      const execution = await this.options.store.get(id);
      if (execution) this.callbacks.send(execution);
    }
  }

  /** Detaches running executions (they resume at the next start) and stops callbacks. */
  async close(): Promise<void> {
    await this.worker.close();
    await this.callbacks.close();
  }

  /**
   * Starts an execution of a validated workflow: checks inputs, action targets and the callback
   * URL (throwing `VALIDATION`, nothing stored), stores it `pending` and runs it here. The
   * webhooks and event triggers start their runs through this too.
   */
  async startExecution(request: ExecutionRequest): Promise<StartedExecution> {
    const inputs = resolveInputs(request.workflow, request.inputs ?? {});
    await this.checkTargets(actionTargets(request.workflow, request.library ?? [request.workflow]));
    if (request.callbackUrl !== undefined) await this.egress.check(request.callbackUrl);
    const start = this.newStart(request, inputs);
    const outcome = await this.options.store.create(start.stored, start.claim, start.lease);
    if (!outcome.created) return this.existing(outcome, start);
    return { execution: start.execution, created: true, done: this.run(start) };
  }

  /**
   * Checks many requests (each as {@link startExecution} checks one, failing alone) and builds
   * their records, so that `commit()`, at the instant they are due (a schedule's fires), only
   * stores them: in one go (one commit on SQLite), stamped with the commit's time. Their runs
   * begin after `commit()` has answered, so the last record is not held up by the first runs.
   * Commit soon: a record's lease on this worker counts from the preparation.
   */
  async prepareExecutions(requests: readonly ExecutionRequest[]): Promise<PreparedExecutions> {
    // Requests that call the same plugins need one look at them.
    const checks = new Map<string, Promise<void>>();
    const prepared = await Promise.allSettled(
      requests.map(async (request) => {
        const inputs = resolveInputs(request.workflow, request.inputs ?? {});
        const targets = actionTargets(request.workflow, request.library ?? [request.workflow]);
        const key = targets.map((t) => (t.kind === 'plugin' ? t.slug : t.ref)).join('\n');
        let check = checks.get(key);
        if (!check) checks.set(key, (check = this.checkTargets(targets)));
        await check;
        if (request.callbackUrl !== undefined) await this.egress.check(request.callbackUrl);
        return this.newStart(request, inputs);
      }),
    );
    return { commit: () => this.commitStarts(prepared) };
  }

  /** {@link prepareExecutions} and its commit at once. */
  async startExecutions(
    requests: readonly ExecutionRequest[],
  ): Promise<PromiseSettledResult<StartedExecution>[]> {
    return (await this.prepareExecutions(requests)).commit();
  }

  private async commitStarts(
    prepared: readonly PromiseSettledResult<NewStart>[],
  ): Promise<PromiseSettledResult<StartedExecution>[]> {
    const now = new Date(this.options.clock.now()).toISOString();
    const outcomes = await Promise.allSettled(
      prepared.map((result) => {
        if (result.status === 'rejected') return Promise.reject(result.reason as Error);
        const { execution, stored, claim, lease } = result.value;
        execution.created_at = stored.created_at = now;
        if (lease) stored.started_at = now;
        return this.options.store.create(stored, claim, lease);
      }),
    );
    const runs: (() => void)[] = [];
    const results = outcomes.map((outcome, i): PromiseSettledResult<StartedExecution> => {
      if (outcome.status === 'rejected') return outcome;
      const start = (prepared[i] as PromiseFulfilledResult<NewStart>).value;
      if (!outcome.value.created) {
        try {
          return { status: 'fulfilled', value: this.existing(outcome.value, start) };
        } catch (error) {
          return { status: 'rejected', reason: error };
        }
      }
      const done = new Promise<StoredExecution | undefined>((resolve) =>
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
    if (targets.length === 0 || !this.options.actions.unavailable) return;
    const unavailable = await this.options.actions.unavailable(targets);
    if (unavailable.length > 0) {
      throw new ValidationError(
        `plugins must be published or registered to run on the server; not found: ${unavailable.join(', ')}`,
        { field: 'workflow', constraint: 'plugins_available', unavailable },
      );
    }
  }

  /** The record of a new execution of a checked request, and how it will run here. */
  private newStart(request: ExecutionRequest, inputs: Record<string, unknown>): NewStart {
    const { workflow } = request;
    const library = request.library ?? [workflow];
    const keyId = request.keyId ?? null;
    const execution: StoredExecution = {
      id: timeOrderedId(),
      owner: request.owner,
      key_id: keyId,
      workflow: workflow.name,
      workflow_version: workflow.version,
      mode: 'cloud',
      status: 'pending',
      definition: { workflow, library: library.length === 1 ? [] : [...library] },
      inputs,
      trigger: request.trigger,
      callback_url: request.callbackUrl ?? null,
      created_at: new Date(this.options.clock.now()).toISOString(),
      started_at: null,
      finished_at: null,
      canceled_at: null,
      result: null,
      error: null,
      callback: null,
    };
    // With a free run slot here, the execution is stored already running under this worker's
    // lease (one write instead of an insert and a claim); the caller still gets it pending.
    const lease = this.worker.leaseForNew();
    return {
      execution,
      stored: lease
        ? { ...execution, status: 'running', started_at: execution.created_at }
        : execution,
      lease,
      claim:
        request.idempotency && keyId !== null
          ? {
              key_id: keyId,
              key: request.idempotency.key,
              fingerprint: request.idempotency.fingerprint,
            }
          : undefined,
      executable: { workflow, library: [...library] },
    };
  }

  /** The answer when the idempotency key named an execution created before. */
  private existing(outcome: CreateOutcome & { created: false }, start: NewStart): StartedExecution {
    if (outcome.fingerprint !== start.claim!.fingerprint) {
      throw new ConflictError(
        `idempotency_key "${start.claim!.key}" was used for a different request; use a new key`,
        { field: 'idempotency_key', execution_id: outcome.execution.id },
      );
    }
    return { ...outcome, done: Promise.resolve(undefined) };
  }

  /** Runs a stored new execution here (at once under its lease, or after claiming it). */
  private run(start: NewStart): Promise<StoredExecution | undefined> {
    const done = start.lease
      ? this.worker.runNew(start.stored, start.executable)
      : this.worker.launch(start.execution.id, undefined, start.executable);
    done.catch((error: unknown) => this.options.onError(error, `running ${start.execution.id}`));
    return done;
  }

  /** An execution of `owner`; `NOT_FOUND` for unknown ids and other owners' executions alike. */
  async get(id: string, owner: string): Promise<StoredExecution> {
    const execution = await this.options.store.get(id);
    if (!execution || execution.owner !== owner) {
      throw new NotFoundError(`no execution ${id}`, { execution_id: id });
    }
    return execution;
  }

  /**
   * Waits up to `ms` for execution `id` to end; gives it as it is then. Woken by this process's
   * writes, polling the store every second for executions running elsewhere.
   */
  async waitFor(
    id: string,
    owner: string,
    ms: number,
    signal?: AbortSignal,
  ): Promise<StoredExecution> {
    const deadline = this.options.clock.now() + ms;
    for (;;) {
      const remaining = deadline - this.options.clock.now();
      const wake = this.worker.hub.wait(id, Math.max(0, Math.min(remaining, 1000)), signal);
      const execution = await this.get(id, owner);
      if (isFinished(execution) || remaining <= 0 || signal?.aborted) return execution;
      await wake;
    }
  }

  /**
   * Cancels an execution of `owner`: a run here is aborted (its in-flight actions get their
   * signal) and ends `canceled`; a pending one, or one running on another server, is ended
   * `canceled` in the store (the other server notices at its next lease renewal). An ended
   * execution is answered as it is.
   */
  async cancel(id: string, owner: string): Promise<StoredExecution> {
    const execution = await this.get(id, owner);
    if (isFinished(execution)) return execution;
    const local = this.worker.running(id);
    if (local) {
      local.cancel();
      await local.done;
      return this.get(id, owner);
    }
    const at = new Date(this.options.clock.now()).toISOString();
    const error = toErrorObject(
      new CanceledError('the execution was canceled', { canceled_at: at }),
    );
    const seq = (await this.options.store.lastEventSeq(id)) + 1;
    const event = {
      type: 'workflow.completed',
      timestamp: at,
      workflow_id: id,
      step_name: '',
      data: { status: 'canceled', outputs: {}, error, duration_ms: 0 },
    };
    const outcome: ExecutionOutcome = {
      status: 'canceled',
      finished_at: at,
      canceled_at: at,
      result: { outputs: {}, steps: {} },
      error,
      callback: execution.callback_url ? pendingCallback(id) : null,
    };
    const ended = await this.options.store.finish(id, outcome, {
      events: [{ seq, type: event.type, json: JSON.stringify(event) }],
      usage: usageOf(execution, outcome, 0),
    });
    this.worker.hub.notify(id);
    const final = await this.get(id, owner);
    if (ended) this.ended(final);
    return final;
  }

  /**
   * Runs one action for a caller (`POST /actions/execute`, the cloud steps of hybrid runs) with
   * the server's invoker and a §2.9 context of its own; counts it in the key's usage. A `version`
   * makes the target `connector` reference `<plugin>@<version>`.
   */
  async executeAction(call: ActionRequest): Promise<unknown> {
    const target: ActionCall['target'] =
      call.version !== undefined
        ? { kind: 'connector', ref: `${call.plugin}@${call.version}` }
        : { kind: 'plugin', slug: call.plugin };
    const unavailable = await this.options.actions.unavailable?.([target]);
    if (unavailable && unavailable.length > 0) {
      throw new ValidationError(
        `plugin ${unavailable.join(', ')} is neither published nor registered on this server`,
        { field: 'plugin', constraint: 'plugins_available', unavailable },
      );
    }
    const controller = new AbortController();
    const timeoutMs = this.options.defaultTimeoutMs ?? 120_000;
    const timer = setTimeout(
      () =>
        controller.abort(
          new TimeoutError(`action ${call.plugin}.${call.action} timed out after ${timeoutMs} ms`, {
            timeout_ms: timeoutMs,
            elapsed_ms: timeoutMs,
          }),
        ),
      timeoutMs,
    );
    const started = this.options.clock.now();
    const id = call.idempotencyKey ?? randomUUID();
    const context: ExecutionContext = {
      workflowId: id,
      stepName: call.action,
      inputs: {},
      executionMode: 'cloud',
      environment: this.options.environment,
      secrets: {},
      previousSteps: {},
      signal: controller.signal,
      get aborted() {
        return controller.signal.aborted;
      },
      idempotencyKey: id,
      progress: () => {},
    };
    try {
      const invoker = this.options.actions.invoker({ owner: call.owner, keyId: call.keyId });
      const invoked = invoker.invoke({ target, action: call.action, input: call.input, context });
      const aborted = new Promise<never>((_, reject) =>
        controller.signal.addEventListener('abort', () => reject(controller.signal.reason), {
          once: true,
        }),
      );
      return (await Promise.race([invoked, aborted])).output;
    } catch (error) {
      throw error instanceof WeftError ? error : asBackendError(error, call.plugin);
    } finally {
      clearTimeout(timer);
      const finished = this.options.clock.now();
      this.options.store
        .addUsage(call.keyId, call.owner, new Date(finished).toISOString().slice(0, 10), {
          executions: 0,
          action_calls: 1,
          duration_ms: finished - started,
        })
        .catch((error: unknown) => this.options.onError(error, 'usage of an action call'));
    }
  }

  /** Sends the callback of an ended execution (its usage was written with its end). */
  private ended(execution: StoredExecution): void {
    if (execution.callback_url && execution.callback?.status === 'pending') {
      this.callbacks.send(execution);
    }
  }
}

/** True once an execution has ended. */
export function isFinished(execution: Pick<StoredExecution, 'status'>): boolean {
  return FINISHED_STATUSES.includes(execution.status);
}

/** The fingerprint of a start request, to tell a replay from a different request. */
export function fingerprintOf(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

function asBackendError(error: unknown, backend: string): WeftError {
  const message = error instanceof Error ? error.message : String(error);
  return new BackendError(`${backend} failed: ${message}`, { backend, original_error: message });
}
