import { EnvironmentSecretsProvider, type Trigger } from '@weft/core';
import type { WorkflowDefinition } from '@weft/engine';
import type { PendingRecord, StartExecution, StartRequest } from './start-execution.js';

export { ManualClock } from '@weft/core/testing';

/** A {@link StartExecution} that records what it was asked and answers pending records. */
export class RecordingStarter {
  readonly requests: StartRequest[] = [];
  failWith: Error | undefined;
  readonly start: StartExecution = async (request) => {
    if (this.failWith) throw this.failWith;
    this.requests.push(request);
    const id = `exec-${this.requests.length}`;
    return pendingRecordOf(id, request.workflow.name, request.trigger.type);
  };
}

/** The pending execution record the runtime would answer for a new execution `id`. */
export function pendingRecordOf(id: string, workflow: string, trigger: string): PendingRecord {
  return {
    execution_id: id,
    status: 'pending',
    poll_url: `/workflows/executions/${id}`,
    workflow,
    workflow_version: '1.0.0',
    mode: 'cloud',
    trigger,
    created_at: '2026-01-01T00:00:00.000Z',
    started_at: null,
    finished_at: null,
  };
}

/** A minimal valid workflow definition with the given triggers. */
export function workflowWith(name: string, triggers: Trigger[]): WorkflowDefinition {
  return {
    name,
    version: '1.0.0',
    inputs: {},
    triggers,
    steps: [{ name: 'noop', type: 'transform', output: { ok: true } } as never],
  };
}

/** Secrets from a plain map. */
export function secretsOf(values: Record<string, string>) {
  return new EnvironmentSecretsProvider(values);
}
