import type { CallbackState, ExecutionRecord, StoredExecution, Workflow } from '@weft/core';
import { MASK } from '@weft/engine';

/** The path a client polls (docs/runtime.md#execution-record). */
export function pollUrl(id: string): string {
  return `/workflows/executions/${id}`;
}

/** A stored execution as the API shows it (docs/design.md#executions). */
export function toExecutionRecord(execution: StoredExecution): ExecutionRecord {
  const record: ExecutionRecord = {
    execution_id: execution.id,
    status: execution.status,
    poll_url: pollUrl(execution.id),
    workflow: execution.workflow,
    workflow_version: execution.workflow_version,
    mode: execution.mode,
    trigger: execution.trigger.type,
    inputs: maskedInputs(execution),
    created_at: execution.created_at,
    started_at: execution.started_at,
    finished_at: execution.finished_at,
  };
  if (execution.canceled_at) record.canceled_at = execution.canceled_at;
  if (execution.status === 'waiting' && execution.waiting_for) {
    record.waiting_for = execution.waiting_for;
  }
  if (execution.result) record.result = execution.result;
  if (execution.error) record.error = execution.error;
  const protocol = (execution.definition?.workflow as Pick<Workflow, 'execution'> | undefined)
    ?.execution?.streaming?.protocol;
  if (protocol) record.stream_protocol = protocol;
  if (execution.callback && execution.callback_url) {
    record.callback = { url: execution.callback_url, ...execution.callback };
  }
  if (execution.resumed_from) record.resumed_from = execution.resumed_from;
  return record;
}

/**
 * The inputs an execution was started with, the value of each input its workflow declares
 * `secret: true` replaced by `***` (docs/workflow-language.md#inputs): records leave the server.
 */
export function maskedInputs(execution: Pick<StoredExecution, 'inputs' | 'definition'>) {
  const declared = (execution.definition?.workflow as Pick<Workflow, 'inputs'> | undefined)?.inputs;
  const inputs: Record<string, unknown> = { ...execution.inputs };
  for (const [name, spec] of Object.entries(declared ?? {})) {
    if (spec.secret === true && name in inputs && inputs[name] !== null) inputs[name] = MASK;
  }
  return inputs;
}

/**
 * An error object without its stack trace (records and events leave the server; stacks stay in
 * its logs). The same object when it has none.
 */
export function cleanError<T>(error: T): T {
  const details = (error as { details?: Record<string, unknown> } | undefined)?.details;
  if (!details || typeof details['stack_trace'] !== 'string' || details['stack_trace'] === '')
    return error;
  return { ...error, details: { ...details, stack_trace: '' } };
}

/** Step records with {@link cleanError} applied to each error. */
export function cleanSteps<T extends Record<string, { error?: unknown }>>(steps: T): T {
  let out: T | undefined;
  for (const [name, step] of Object.entries(steps)) {
    if (step.error === undefined) continue;
    const error = cleanError(step.error);
    if (error === step.error) continue;
    out ??= { ...steps };
    (out as Record<string, unknown>)[name] = { ...step, error };
  }
  return out ?? steps;
}

/** The callback state of an execution that just ended: nothing sent yet. */
export function pendingCallback(id: string): CallbackState {
  return {
    status: 'pending',
    attempts: 0,
    last_status: null,
    last_error: null,
    webhook_id: `msg_${id}`,
    delivered_at: null,
  };
}
