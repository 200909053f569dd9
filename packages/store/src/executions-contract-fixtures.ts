import type { ExecutionOutcome, StoredExecution } from '@weft/core';

/** Records, outcomes and events the executions store contracts write. */
let counter = 0;

export function execution(extra: Partial<StoredExecution> = {}): StoredExecution {
  counter++;
  return {
    id: `exec-${String(counter).padStart(4, '0')}`,
    owner: 'acme',
    key_id: 'key1',
    workflow: 'w',
    workflow_version: '1.0.0',
    mode: 'cloud',
    status: 'pending',
    definition: { workflow: { name: 'w', steps: [] }, library: [] },
    inputs: { n: 1 },
    trigger: { type: 'api' },
    callback_url: null,
    created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, counter)).toISOString(),
    started_at: null,
    finished_at: null,
    canceled_at: null,
    result: null,
    error: null,
    callback: null,
    ...extra,
  };
}

export const DONE: ExecutionOutcome = {
  status: 'completed',
  finished_at: '2026-01-01T01:00:00.000Z',
  canceled_at: null,
  result: { outputs: { r: 1 }, steps: {} },
  error: null,
  callback: null,
};

export const event = (seq: number, type = 'step.started') => ({
  seq,
  type,
  json: JSON.stringify({ type, seq }),
});

/** Rows in the order of their paths (stores give steps in no set order). */
export function sortedByPath<T extends { path: string }>(rows: T[]): T[] {
  return [...rows].sort((a, b) => a.path.localeCompare(b.path));
}
