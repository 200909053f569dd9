import { keyPrincipal } from '@weft/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoredExecution } from '@weft/core';
import { loadWorkflowSource, type WorkflowDefinition } from '@weft/engine';
import { openTestExecutionsStore, type TestExecutions } from '@weft/store';
import { buildRuntimeHarness, testActions, type RuntimeHarness } from '../test-support/harness.js';

/** Loads one workflow file's workflows by name. */
function workflows(text: string): Map<string, WorkflowDefinition> {
  const result = loadWorkflowSource(text);
  if (!result.ok) throw new Error(JSON.stringify(result.diagnostics));
  return new Map(result.workflows.map((w) => [w.name, w]));
}

const FILE = workflows(`workflows:
  - name: count
    inputs: { n: { type: number, required: true } }
    steps:
      - { name: a, plugin: p, action: echo, input: { v: '{{ inputs.n }}' } }
    outputs: { v: { value: '{{ steps.a.output.v }}' } }
  - name: missing-plugin
    steps:
      - { name: a, plugin: nowhere, action: echo, input: {} }
`);

let store: TestExecutions | undefined;
let harness: RuntimeHarness | undefined;

afterEach(async () => {
  await harness?.close();
  await store?.dispose();
  harness = undefined;
});

async function start() {
  store = await openTestExecutionsStore('memory');
  const calls: unknown[] = [];
  harness = await buildRuntimeHarness(
    store.executions,
    testActions({ 'p.echo': (input) => (calls.push(input['v']), input) }),
  );
  return { runtime: harness.runtime, executions: store.executions, calls };
}

const request = (workflow: string, inputs: Record<string, unknown> = {}) => ({
  workflow: FILE.get(workflow)!,
  inputs,
  trigger: { type: 'schedule', payload: { scheduled_at: '2026-01-01T00:00:00.000Z' } },
  principal: keyPrincipal({ keyId: 'ka', owner: 'alice' }),
});

describe('starting many executions at once', () => {
  it('stores each good request, fails each bad one alone, and runs the stored ones', async () => {
    const { runtime, executions, calls } = await start();
    const results = await runtime.startExecutions([
      request('count', { n: 1 }),
      request('count', { n: 'not a number' }),
      request('missing-plugin'),
      request('count', { n: 2 }),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
    ]);
    const [first, badInput, unavailable, last] = results;
    expect((badInput as PromiseRejectedResult).reason).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'inputs.n' },
    });
    expect((unavailable as PromiseRejectedResult).reason).toMatchObject({
      code: 'VALIDATION',
      details: { constraint: 'plugins_available', unavailable: ['nowhere'] },
    });
    const started = [first, last].map((r) => (r as PromiseFulfilledResult<never>).value) as {
      execution: StoredExecution;
      done: Promise<StoredExecution | undefined>;
    }[];
    // Answered pending and already durable; only the two good ones were stored.
    for (const { execution } of started) {
      expect(execution.status).toBe('pending');
      expect(await executions.get(execution.id)).toBeDefined();
    }
    expect(await executions.list({ owner: 'alice', limit: 10 })).toHaveLength(2);
    const ended = await Promise.all(started.map((s) => s.done));
    expect(ended.map((e) => [e?.status, e?.result?.outputs])).toEqual([
      ['completed', { v: 1 }],
      ['completed', { v: 2 }],
    ]);
    expect(calls.sort()).toEqual([1, 2]);
  });

  it('prepares without storing anything; the commit stores them stamped with its own time', async () => {
    const { runtime, executions } = await start();
    const prepared = await runtime.prepareExecutions([request('count', { n: 1 })]);
    expect(await executions.list({ owner: 'alice', limit: 10 })).toEqual([]);
    await new Promise((r) => setTimeout(r, 20));
    const before = Date.now();
    const [result] = await prepared.commit();
    const { execution, done } = (result as PromiseFulfilledResult<never>).value as {
      execution: StoredExecution;
      done: Promise<StoredExecution | undefined>;
    };
    expect(Date.parse(execution.created_at)).toBeGreaterThanOrEqual(before);
    expect((await executions.get(execution.id))!.created_at).toBe(execution.created_at);
    expect((await done)?.status).toBe('completed');
  });

  it('an empty batch stores nothing and answers nothing', async () => {
    const { runtime } = await start();
    expect(await runtime.startExecutions([])).toEqual([]);
  });
});
