import { afterEach, describe, expect, it } from 'vitest';
import { type AuditDraft, type StoredExecution } from '@weft/core';
import { openTestExecutionsStore, type TestExecutionsStore } from '@weft/store';
import { startTelemetry } from '@weft/telemetry/setup';
import { auditHash } from '../audit/hash.js';
import { verifyAuditChain } from '../audit/verify.js';
import { RetentionSweeper } from './sweeper.js';
import { MemoryAuditStore } from '../audit/memory-audit-store.js';

const NOW = Date.parse('2026-06-01T00:00:00.000Z');
const daysAgo = (days: number) => new Date(NOW - days * 86_400_000).toISOString();

let opened: TestExecutionsStore | undefined;
afterEach(async () => opened?.dispose());

let counter = 0;
/** Stores an execution of `workflow` that ended `days` ago, with a journaled step and events. */
async function ended(test: TestExecutionsStore, workflow: string, days: number): Promise<string> {
  const id = `exec-${++counter}`;
  const execution: StoredExecution = {
    id,
    owner: 'acme',
    key_id: null,
    workflow,
    workflow_version: '1.0.0',
    mode: 'cloud',
    status: 'pending',
    definition: { workflow: { name: workflow, steps: [] }, library: [] },
    inputs: {},
    trigger: { type: 'api' },
    callback_url: null,
    created_at: daysAgo(days + 1),
    started_at: null,
    finished_at: null,
    canceled_at: null,
    result: null,
    error: null,
    callback: null,
  };
  const event = (seq: number) => ({ seq, type: 'step.started', json: '{}' });
  await test.executions.create(execution, undefined, undefined, [event(1)]);
  await test.executions.journal(id, [{ path: 'a', json: '{}' }], [event(2)]);
  const outcome = {
    status: 'completed' as const,
    finished_at: daysAgo(days),
    canceled_at: null,
    result: { outputs: {}, steps: {} },
    error: null,
    callback: null,
  };
  await test.executions.finish(id, outcome, { events: [] });
  return id;
}

function draft(at: string): AuditDraft {
  return {
    id: `entry-${++counter}`,
    at,
    subject: 'alice',
    credential: 'api_key',
    action: 'execution.start',
    workflow: 'w',
    execution_id: null,
    step: null,
    decision: 'allow',
    reason: 'ok',
    required: { roles: [], permissions: [] },
    missing: { roles: [], permissions: [] },
    owner: null,
  };
}

describe('retention', () => {
  it('deletes old executions in batches, per workflow override, and old audit entries; counts them', async () => {
    const test = (opened = await openTestExecutionsStore('sqlite'));
    const audit = new MemoryAuditStore();
    await audit.append([draft(daysAgo(400)), draft(daysAgo(200)), draft(daysAgo(1))], auditHash);
    const old = await Promise.all([1, 2, 3, 4, 5].map(() => ended(test, 'orders', 40)));
    const recent = await ended(test, 'orders', 5);
    const keptLonger = await ended(test, 'ledger', 40);
    const shortLived = await ended(test, 'pings', 2);
    const telemetry = startTelemetry({ serviceName: 'test', global: false });
    const sweeper = new RetentionSweeper(
      {
        executionDays: 30,
        auditDays: 365,
        batchSize: 2,
        pauseMs: 0,
        overrides: async () => [
          { owner: 'acme', workflow: 'ledger', days: 90 },
          { owner: 'acme', workflow: 'pings', days: 1 },
        ],
      },
      {
        executions: test.executions,
        audit,
        clock: { now: () => NOW },
        metrics: telemetry.metrics,
        onError: (error) => {
          throw error;
        },
      },
    );

    expect(await sweeper.runOnce()).toEqual({
      executions: 6,
      steps: 6,
      events: 12,
      audit_entries: 1,
    });
    for (const id of [...old, shortLived]) expect(await test.executions.get(id)).toBeUndefined();
    for (const id of [recent, keptLonger]) expect(await test.executions.get(id)).toBeDefined();
    expect(await test.executions.events(old[0]!, 0, 10)).toEqual([]);
    expect(await verifyAuditChain(audit)).toMatchObject({ status: 'ok', entries: 2, first_seq: 2 });
    const text = await telemetry.prometheus();
    expect(text).toMatch(/^weft_retention_deleted_total\{kind="executions"\} 6$/m);
    expect(text).toMatch(/^weft_retention_deleted_total\{kind="audit_entries"\} 1$/m);
    // A second pass finds nothing more.
    expect((await sweeper.runOnce()).executions).toBe(0);
    await telemetry.shutdown();
  });

  it('deletes nothing without a setting', async () => {
    const test = (opened = await openTestExecutionsStore('sqlite'));
    const id = await ended(test, 'orders', 4000);
    const sweeper = new RetentionSweeper(
      {},
      {
        executions: test.executions,
        audit: new MemoryAuditStore(),
        clock: { now: () => NOW },
        onError: () => {},
      },
    );
    expect(sweeper.enabled).toBe(false);
    expect((await sweeper.runOnce()).executions).toBe(0);
    expect(await test.executions.get(id)).toBeDefined();
  });
});
