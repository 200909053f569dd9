import {
  InternalError,
  type CallbackState,
  type ExecutionOutcome,
  type SecretsProvider,
  type StoredExecution,
  type UsageEntry,
} from '@weft/core';
import {
  needsStepPermissions,
  pickWorkflow,
  runWorkflow,
  standardInterceptors,
  type JournaledStep,
  type RunInterceptor,
  type RunResult,
} from '@weft/engine';
import { needsGuardrails } from '@weft/guardrails';
import type { RunSpan, TraceCarrier } from '@weft/telemetry';
import { auditedStepPermissions, principalOf } from '../authorization/step-check.js';
import type { CompiledRuntimeOptions } from '../options.js';
import { restoreWorkflow, type ExecutableWorkflow } from './definition.js';
import type { ExecutionHub } from './hub.js';
import { JournalBuffer } from './journal-buffer.js';
import { cleanError, cleanSteps, pendingCallback } from './record.js';
import { deadlineOf, requestedData, waitEvents } from '../waits/wait-events.js';
import { serverToolApprovals } from '../waits/tool-calls.js';

/** An execution running in this process. */
export interface ActiveRun {
  id: string;
  /** The ended execution; undefined when the run was detached or someone else ended it. */
  done: Promise<StoredExecution | undefined>;
  /** Cancels it: in-flight actions get their abort signal; it ends `canceled`. */
  cancel(): void;
  /**
   * Stops it without ending it (shutdown, or the lease was lost): nothing more is journaled, so
   * whoever resumes it runs the interrupted steps again.
   */
  detach(reason: 'shutdown' | 'lost'): void;
  /** The trace context of its run span once it ended (traced runs): its callback carries it. */
  trace?: TraceCarrier | undefined;
}

/** What a run needs from the worker. */
export interface RunContext {
  options: CompiledRuntimeOptions;
  hub: ExecutionHub;
  secrets: SecretsProvider;
  /** The lease holder running it (this worker). */
  worker: string;
  /** Learns the deadline (ms) of a wait it started (a tool call's approval). */
  onWait(deadline: number): void;
  /**
   * The span started for it with its record (a run started here, now); without one, its span
   * is a child of the trace context stored with it (a resumed run).
   */
  trace?: RunSpan | undefined;
}

/** Runs a claimed execution from its journal to its end (see {@link ActiveRun}). */
export function runClaimed(
  execution: StoredExecution,
  executable: ExecutableWorkflow | undefined,
  journal: JournaledStep[],
  lastSeq: number,
  context: RunContext,
): ActiveRun {
  const { options, hub } = context;
  const controller = new AbortController();
  let detached: string | undefined;
  let calls = 0;
  const { workflow, library } = executable ?? restoreWorkflow(execution.definition);
  // `runWorkflow` passes on only the events `execution.streaming` lets through.
  const buffer = new JournalBuffer(options.store, hub, execution.id, lastSeq);
  const invoker = options.actions.invoker({ owner: execution.owner, keyId: execution.key_id });
  // Counts the action calls for the key's usage (every attempt, subworkflow steps included).
  const counter: RunInterceptor = {
    name: 'action-calls',
    invoke: (call, next) => {
      calls++;
      return next(call);
    },
  };
  const principal = principalOf(execution);
  const { tracing, metrics } = options;
  const interceptors = standardInterceptors({
    tracing: tracing?.interceptor,
    stepPermissions:
      needsStepPermissions(library) || needsStepPermissions([workflow])
        ? auditedStepPermissions(options.audit, execution)
        : undefined,
    guardrails:
      needsGuardrails([workflow]) || needsGuardrails(library) ? options.guardrails : undefined,
    usage: counter,
    metrics: metrics?.interceptor,
  });
  // A tool call that needs approval: its agent step's state is saved, the execution waits,
  // and this run stops here (it resumes from the journal once decided).
  const toolApprovals = serverToolApprovals({
    execution,
    journal,
    now: () => options.clock.now(),
    suspend: async (row, waiting) => {
      if (detached !== undefined) return;
      detached = 'waiting';
      try {
        const kind = waiting.kind;
        const suspended = await buffer.suspend(row, context.worker, waiting, (seq) =>
          waitEvents(execution, kind, 'requested', requestedData(waiting), waiting.since, seq),
        );
        const deadline = deadlineOf(waiting);
        if (suspended && deadline !== undefined) context.onWait(deadline);
      } finally {
        controller.abort();
      }
    },
  });
  const run = async (): Promise<StoredExecution | undefined> => {
    // The run's span is found by its id, not made active: its log lines get its ids here.
    const traceFields = tracing?.runTraceFields(execution.id) ?? {};
    options.runLog?.started(execution, journal.length > 0 || lastSeq > 0, traceFields);
    const result = await runWorkflow(workflow, execution.inputs, {
      invoker,
      interceptors,
      ...(options.agents ? { agents: options.agents, toolApprovals } : {}),
      ...(principal ? { principal } : {}),
      owner: execution.owner,
      executionId: execution.id,
      executionMode: 'cloud',
      environment: options.environment,
      secrets: context.secrets,
      clock: options.clock,
      signal: controller.signal,
      onEvent: (event) => {
        if (detached === undefined) buffer.event(event);
      },
      trigger: execution.trigger,
      resolveWorkflow: (name, version) => pickWorkflow(library, name, version),
      journal,
      // The steps that finish last are written with the end of the execution (one write).
      journalWithEnd: true,
      onStepFinished: (step) =>
        detached === undefined
          ? buffer.step(step)
          : Promise.reject(
              new InternalError(`execution ${detached}`, { error_type: detached, stack_trace: '' }),
            ),
      ...(options.defaultTimeoutMs !== undefined
        ? { defaultTimeoutMs: options.defaultTimeoutMs }
        : {}),
      ...(options.maxForEachItems !== undefined
        ? { maxForEachItems: options.maxForEachItems }
        : {}),
    });
    if (detached !== undefined) return undefined;
    const outcome = outcomeOf(result, execution);
    const usage = usageOf(execution, outcome, calls);
    if (!(await buffer.finish(outcome, usage))) return undefined;
    metrics?.executionEnded(workflow.name, outcome.status);
    const ended: StoredExecution = { ...execution, ...outcome, status: outcome.status };
    // The callback's `traceparent` (only an execution with a callback has one to send).
    if (tracing && ended.callback_url) active.trace = tracing.runTrace(execution.id);
    options.runLog?.ended(ended, usage.delta.duration_ms, traceFields);
    return ended;
  };
  const active: ActiveRun = {
    id: execution.id,
    done: tracing
      ? tracing.traceRun(
          {
            executionId: execution.id,
            workflow: workflow.name,
            version: workflow.version,
            mode: 'cloud',
          },
          context.trace ?? execution.trace_context,
          run,
          { resumed: context.trace === undefined && execution.trace_context !== undefined },
        )
      : run(),
    cancel: () => controller.abort(),
    detach: (reason) => {
      detached = reason;
      controller.abort();
    },
  };
  return active;
}

/** What an ended execution adds to its key's usage (keyless ones count for their owner). */
export function usageOf(
  execution: StoredExecution,
  outcome: ExecutionOutcome,
  actionCalls: number,
): UsageEntry {
  const started = Date.parse(execution.started_at ?? execution.created_at);
  const finished = Date.parse(outcome.finished_at);
  // A timestamp that does not parse must not fail the write of the end.
  const duration = Number.isFinite(finished - started) ? Math.max(0, finished - started) : 0;
  return {
    keyId: execution.key_id ?? `owner:${execution.owner}`,
    owner: execution.owner,
    date: outcome.finished_at.slice(0, 10),
    delta: {
      executions: 1,
      action_calls: actionCalls,
      duration_ms: duration,
    },
  };
}

function outcomeOf(result: RunResult, execution: StoredExecution): ExecutionOutcome {
  const error = result.error ? cleanError(result.error) : null;
  const callback: CallbackState | null = execution.callback_url
    ? pendingCallback(execution.id)
    : null;
  return {
    status: result.status,
    finished_at: result.finished_at,
    canceled_at:
      result.status === 'canceled'
        ? String(result.error?.details['canceled_at'] ?? result.finished_at)
        : null,
    result: {
      outputs: result.outputs,
      steps: cleanSteps(result.steps),
    },
    error,
    callback,
  };
}
