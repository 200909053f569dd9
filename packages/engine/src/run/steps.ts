import {
  assertNever,
  capErrorObject,
  InternalError,
  toErrorObject,
  UnavailableError,
  ValidationError,
  WeftError,
} from '@weft/core';
import { isTruthy } from '@weft/expr';
import type { StepPlan } from './plan.js';
import { callWithRetry } from './retries.js';
import type { InternalRecord, Run, StepEntry, StepTally } from './run.js';
import { abortOf, StepScope } from './step-scope.js';
import { runSubworkflow } from './subworkflow.js';

/** Most iterations of one concurrent `for_each` in flight at a time. */
export const FOR_EACH_WINDOW = 1_000;

/**
 * Runs one step with every semantic (docs/workflow-language.md#steps): condition, for_each, retry, timeout,
 * continue_on_error; records it and makes it readable as `steps.<id>`. Resolves to its entry;
 * rejects only when journaling an earlier step failed (a failure of its own is an entry with
 * status `failed`). Chained on promises rather than awaited in an async frame, which with its
 * await allocated ~0.3 KB a step.
 */
export function runStep(run: Run, plan: StepPlan): Promise<StepEntry> {
  const journaled = run.restore(plan);
  if (journaled) return Promise.resolve(journaled);
  // Nothing starts before the steps that finished before it are durable.
  if (run.journalPending) return run.durable().then(() => startStep(run, plan));
  return startStep(run, plan);
}

function startStep(run: Run, plan: StepPlan): Promise<StepEntry> {
  const startedMs = run.now();
  const record: InternalRecord = {
    entry: { status: 'success' },
    attempts: 0,
    usage: undefined,
    startedMs,
    finishedMs: startedMs,
  };
  run.records.set(plan.name, record);
  if (run.listening) run.emit('step.started', plan.path, {});
  let running: Promise<StepEntry>;
  try {
    if (plan.condition !== undefined && !isTruthy(evaluateCondition(run, plan))) {
      running = Promise.resolve({ status: 'skipped', output: null });
    } else {
      const hooks = run.options.chain?.step;
      running = hooks
        ? new StepScope(run, plan, record, execute).intercept(hooks)
        : execute(run, plan, record);
    }
  } catch (error) {
    running = Promise.reject(error);
  }
  return running.then(
    (entry) => endStep(run, plan, record, entry),
    (error: unknown) => endStep(run, plan, record, failedEntry(run, error)),
  );
}

/** The entry of a step that threw `error`. */
function failedEntry(run: Run, error: unknown): StepEntry {
  const weft = error instanceof WeftError ? error : InternalError.from(error);
  return {
    // Ended by the run's cancellation (its own failure or not): canceled, not failed.
    status: run.canceled ? 'canceled' : 'failed',
    output: null,
    // Masked, then cut (an upstream body of 50 KB): a secret cut in half is not recognised.
    error: capErrorObject(run.secrets.mask(toErrorObject(weft, { includeStack: true }))),
  };
}

/** Records the step's end: its entry, its end event, its journal write. */
function endStep(run: Run, plan: StepPlan, record: InternalRecord, entry: StepEntry): StepEntry {
  // A secret read by another path than `secrets.*` (an agent's key a model echoed) is masked
  // as the step's result enters the run: later steps, outputs, events and records see `***`.
  record.entry = run.secrets.maskFound(entry);
  record.finishedMs = run.now();
  if (run.listening) {
    const duration_ms = record.finishedMs - record.startedMs;
    const { status, output, error } = record.entry;
    const input: Record<string, unknown> =
      record.input !== undefined ? { input: record.input } : {};
    // Retries are drawn one bar per attempt: their spans ride on the end event.
    const log = record.attemptLog;
    if (log && log.length > 1) input['attempt_log'] = log.map(attemptSpan);
    if (status === 'failed' || status === 'canceled')
      run.emit('step.failed', plan.path, {
        error,
        duration_ms,
        attempts: record.attempts,
        ...input,
      });
    else
      run.emit('step.completed', plan.path, {
        status,
        ...input,
        output,
        duration_ms,
        attempts: record.attempts,
      });
  }
  run.journal(plan, record);
  return record.entry;
}

/** One attempt's span on the wire (`attempt_log` of `step.completed` / `step.failed`). */
function attemptSpan(span: NonNullable<StepTally['attemptLog']>[number]) {
  return {
    started_at: new Date(span.startedMs).toISOString(),
    finished_at: new Date(span.finishedMs).toISOString(),
    ...(span.item !== undefined ? { item: span.item } : {}),
    ...(span.code !== undefined ? { error_code: span.code } : {}),
  };
}

function evaluateCondition(run: Run, plan: StepPlan): unknown {
  return typeof plan.condition === 'boolean' ? plan.condition : plan.condition!.evaluate(run.scope);
}

/**
 * Runs the step's kind. Not an async function: that was one more frame per step, its promise
 * and suspended state allocated for every step. A synchronous throw reaches the caller's `try`
 * (`runStep`, `StepScope.proceed`) as a rejection would.
 */
function execute(run: Run, plan: StepPlan, record: StepTally): Promise<StepEntry> {
  const kind = plan.def.type;
  switch (kind) {
    case 'action':
      return runAction(run, plan, record).then(succeeded);
    case 'transform':
      return runTransform(run, plan, record).then(succeeded);
    case 'workflow':
      return runSubworkflow(run, plan, record).then((outputs): StepEntry => ({
        status: 'success',
        outputs,
      }));
    case 'parallel':
      return runParallel(run, plan);
    case 'agent':
      if (run.options.agents) return runAction(run, plan, record).then(succeeded);
      throw new UnavailableError(
        `no agent backend is configured to run agent step "${plan.path}"`,
        {
          backend: plan.def.backend ?? 'ai-sdk',
          suggestion:
            'give the run agent definitions (weft: --agents <dir>; SDK: the agents option), or mock the step with testing.dryRun',
        },
      );
    default:
      return assertNever(kind, 'step type');
  }
}

const succeeded = (output: unknown): StepEntry => ({ status: 'success', output });

/** An action step: once, or once per `for_each` item (in order, or concurrently). */
function runAction(run: Run, plan: StepPlan, record: StepTally): Promise<unknown> {
  if (plan.forEach === undefined) {
    const input = buildInput(run, plan);
    record.input = shownInput(run, plan, input);
    return callWithRetry(run, plan, input, plan.path, record, undefined);
  }
  return runForEach(run, plan, record, (input, i) =>
    callWithRetry(run, plan, input, `${plan.path}[${i}]`, record, i),
  );
}

/** A transform step: its input evaluated once, or once per `for_each` item (`item` bound). */
async function runTransform(run: Run, plan: StepPlan, record: StepTally): Promise<unknown> {
  if (plan.forEach !== undefined) return runForEach(run, plan, record, (input) => input);
  const output = plan.input?.build(run.scope) ?? null;
  if (plan.input) record.input = shownInput(run, plan, output);
  return output;
}

/** Items run between two turns given back to the event loop (signals, timers, I/O). */
const YIELD_EVERY = 256;

/** Lets the event loop run: a long loop of calls that settle at once would starve it. */
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Runs `each` once per `for_each` item with the input built while `item` is bound, in order or
 * concurrently, and gives the outputs in item order. A list longer than the run's
 * `maxForEachItems` fails the step with `VALIDATION` before any item runs. Every
 * {@link YIELD_EVERY} items the loop (all its concurrent workers together) gives the event loop
 * a turn, so that a cancellation (a signal, a timer) is seen even when every item settles at once.
 */
async function runForEach(
  run: Run,
  plan: StepPlan,
  record: StepTally,
  each: (input: Record<string, unknown>, index: number) => unknown,
): Promise<unknown> {
  const items = plan.forEach instanceof Array ? plan.forEach : plan.forEach!.evaluate(run.scope);
  if (!Array.isArray(items)) {
    throw new ValidationError(`for_each of step "${plan.path}" must give a list`, {
      field: `steps.${plan.path}.for_each`,
      constraint: 'type',
    });
  }
  const limit = run.options.maxForEachItems;
  if (items.length > limit) {
    throw new ValidationError(
      `for_each of step "${plan.path}" gives ${items.length} items, over the limit of ${limit}: split the list, or raise the limit (maxForEachItems; WEFT_MAX_FOR_EACH_ITEMS for weft server and weft workflow run)`,
      {
        field: `steps.${plan.path}.for_each`,
        constraint: 'max_items',
        limit,
        actual: items.length,
      },
    );
  }
  const outputs: unknown[] = new Array(items.length);
  const shown: unknown[] = [];
  record.input = shown;
  // One turn for every worker at once: a turn taken by one worker while the others go on with
  // calls that settle at once would never come (the microtask queue would never drain).
  let sinceTurn = 0;
  let turn: Promise<void> | undefined;
  const item = async (i: number): Promise<unknown> => {
    if (turn === undefined && ++sinceTurn >= YIELD_EVERY) {
      sinceTurn = 0;
      turn = yieldToEventLoop().then(() => void (turn = undefined));
    }
    if (turn !== undefined) await turn;
    const stopped = run.canceled ?? (run.aborted && abortOf(run, plan));
    if (stopped) throw stopped;
    run.scope.item = items[i];
    let input: Record<string, unknown>;
    try {
      input = buildInput(run, plan);
      shown[i] = shownInput(run, plan, input);
    } finally {
      run.scope.item = undefined;
    }
    return each(input, i);
  };
  if (!plan.parallelItems) {
    for (let i = 0; i < items.length; i++) outputs[i] = await item(i);
    return outputs;
  }
  // Concurrent iterations, through a window of FOR_EACH_WINDOW in flight at a time: the
  // connector's own cap (at most 100) is lower, and 100,000 pending calls at once would cost
  // memory for nothing. The first failure stops new iterations; the lowest failed index wins.
  let next = 0;
  let failedAt = Infinity;
  let failure: unknown;
  const worker = async (): Promise<void> => {
    while (next < items.length && failedAt === Infinity) {
      const i = next++;
      try {
        outputs[i] = await item(i);
      } catch (error) {
        if (i < failedAt) {
          failedAt = i;
          failure = error;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(FOR_EACH_WINDOW, items.length) }, worker));
  if (failedAt !== Infinity) throw failure;
  return outputs;
}

/**
 * The input as records and events show it: built again with every template that reads a secret
 * as `***` when the input reads some, then any secret value still in it masked (a secret that
 * reached it through an earlier step's output).
 */
function shownInput(run: Run, plan: StepPlan, input: unknown): unknown {
  return run.secrets.mask(plan.shownInput ? plan.shownInput.build(run.scope) : input);
}

function buildInput(run: Run, plan: StepPlan): Record<string, unknown> {
  return (plan.input?.build(run.scope) ?? {}) as Record<string, unknown>;
}

/** A parallel block: children run concurrently; the block fails with its first failed child. */
async function runParallel(run: Run, plan: StepPlan): Promise<StepEntry> {
  const entries = await Promise.all(plan.children.map((child) => runStep(run, child)));
  const block: StepEntry = { status: 'success', output: {} };
  const output = block.output as Record<string, unknown>;
  plan.children.forEach((child, i) => {
    const entry = entries[i]!;
    block[child.name] = entry;
    output[child.name] = entry.outputs ?? entry.output ?? null;
  });
  const failed = plan.children.findIndex(
    (c, i) => entries[i]!.status === 'failed' && !c.continueOnError,
  );
  if (failed >= 0) {
    block.status = 'failed';
    block.error = entries[failed]!.error;
  } else if (run.canceled) {
    const canceled = entries.find((entry) => entry.status === 'canceled');
    if (canceled) {
      block.status = 'canceled';
      block.error = canceled.error;
    }
  }
  return block;
}
