import { BackendError, ValidationError, type ErrorObject, type ExecutionRecord } from '@weft/core';
import {
  calledWorkflows,
  pickWorkflow,
  type RunResult,
  type WorkflowDefinition,
} from '@weft/engine';
import { postExecution, type StartOptions } from '../http-client/executions.js';
import type { HttpApi } from '../http-client/http-api.js';

/**
 * Starts `workflow` on the server (`POST /workflows/executions`), sending it inline as a file
 * with the workflows its subworkflow steps call, picked from `library` (every loaded version) as
 * a local run picks them, and gives the record (docs/runtime.md#execution-record) back: `pending`, or the ended record when
 * `waitSeconds` is set and it ended in time.
 */
export async function startExecution(
  api: HttpApi,
  workflow: WorkflowDefinition,
  library: Iterable<WorkflowDefinition>,
  inputs: Record<string, unknown>,
  options: StartOptions = {},
): Promise<ExecutionRecord> {
  const others = calledOnce(workflow, [...library]);
  return postExecution(
    api,
    { workflow: { workflows: [workflow, ...others] }, workflow_name: workflow.name, inputs },
    options,
  );
}

/**
 * The workflows a run of `workflow` calls, each in the version its steps' pins pick. A file holds
 * one version of each name, so steps that pick two versions of one workflow are refused here.
 */
function calledOnce(
  workflow: WorkflowDefinition,
  library: WorkflowDefinition[],
): WorkflowDefinition[] {
  const picked = new Map<string, { called: WorkflowDefinition; by: string }>([
    [workflow.name, { called: workflow, by: 'the workflow run' }],
  ]);
  for (const call of calledWorkflows(workflow, (name, range) =>
    pickWorkflow(library, name, range),
  )) {
    // A call nothing satisfies fails at its step, on the server as it would here.
    if (!call.called) continue;
    const by = `step "${call.step}" of "${call.caller}"${call.version !== undefined ? ` (version "${call.version}")` : ''}`;
    const before = picked.get(call.name);
    if (!before) picked.set(call.name, { called: call.called, by });
    else if (before.called !== call.called) {
      throw new ValidationError(
        `cloud mode sends one version of each workflow, but workflow "${call.name}" is called as ${before.called.version} by ${before.by} and as ${call.called.version} by ${by}`,
        { field: 'version', constraint: 'one_version' },
      );
    }
  }
  return [...picked.values()].map((p) => p.called).filter((w) => w !== workflow);
}

/** An ended record as the {@link RunResult} a local run gives. */
export function toRunResult(record: ExecutionRecord): RunResult {
  const status = record.status;
  if (status !== 'completed' && status !== 'failed' && status !== 'canceled') {
    throw new BackendError(`execution ${record.execution_id} has not ended (${status})`, {
      backend: 'cloud',
      original_error: `status ${status}`,
    });
  }
  const started = record.started_at ?? record.created_at;
  const finished = record.finished_at ?? started;
  return {
    execution_id: record.execution_id,
    workflow: record.workflow,
    status,
    outputs: record.result?.outputs ?? {},
    steps: record.result?.steps ?? {},
    ...(record.error ? { error: record.error as ErrorObject } : {}),
    started_at: started,
    finished_at: finished,
    duration_ms: Math.max(0, Date.parse(finished) - Date.parse(started)),
  };
}
