import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keyPrincipal, type DeploymentRecord } from '@weft/core';
import { openTestExecutionsStore, type TestExecutions } from '@weft/store';
import {
  buildRuntimeHarness,
  testActions,
  type RuntimeHarness,
} from '../../test-support/harness.js';
import { validateDefinition } from '../parse-definition.js';
import { deployImpact } from './impact.js';

const t = (name: string) => ({ name, type: 'transform', input: { v: name } });
const hold = { name: 'hold', plugin: 'gate', action: 'hold', input: {} };
const V1 = { name: 'w', steps: [t('first'), hold, t('after'), t('last')] };
const alice = keyPrincipal({ keyId: 'ka', name: 'alice', owner: 'alice' });

let store: TestExecutions;
let h: RuntimeHarness;
let release: () => void;
let held: Promise<void>;
let reached: () => void;
let holding: Promise<void>;

beforeEach(async () => {
  store = await openTestExecutionsStore('sqlite');
  held = new Promise((resolve) => (release = resolve));
  holding = new Promise((resolve) => (reached = resolve));
  h = await buildRuntimeHarness(
    store.executions,
    testActions({
      'gate.hold': async () => {
        reached();
        await held;
        return { ok: true };
      },
    }),
  );
});

afterEach(async () => {
  release();
  await h.close();
  await store.dispose();
});

/** The deployed record of `V1`, as the deployment store keeps it. */
const record: DeploymentRecord = {
  owner: 'alice',
  name: 'w',
  version: '1.0.0',
  revision: 1,
  definition: V1,
  plugins: [{ slug: 'gate', version: null }],
  source: 'api',
  deployed_by: 'alice',
  deployer: null,
  deployed_at: '2026-11-01T00:00:00.000Z',
  created_at: '2026-11-01T00:00:00.000Z',
};

describe('the impact of a deploy on running executions', () => {
  it('reports what a running execution has left, read from its journal, with the counts capped', async () => {
    const v1 = validateDefinition(V1, ['w']).workflow;
    const start = () =>
      h.runtime.startExecution({ workflow: v1, trigger: { type: 'manual' }, principal: alice });
    const one = (await start()).execution.id;
    await holding;
    // Its first step is journaled before the second holds (polled: no timing assumed).
    while (!(await store.executions.steps(one)).some((row) => row.path === 'first'))
      await new Promise((resolve) => setImmediate(resolve));
    const two = (await start()).execution.id;
    while ((await store.executions.get(two))?.status !== 'running')
      await new Promise((resolve) => setImmediate(resolve));
    // An inline run of the same name through the API is not the deployment's.
    await h.runtime.startExecution({ workflow: v1, trigger: { type: 'api' }, principal: alice });

    const raw = { name: 'w', steps: [t('after'), t('first'), hold, t('last2')] };
    const next = validateDefinition(raw, ['w']).workflow;
    const question = {
      owner: 'alice',
      previous: { record, workflow: v1 },
      next: { workflow: next, raw },
      nowMs: Date.parse('2026-11-28T00:00:00.000Z'),
    };
    const impact = await deployImpact({ executions: store.executions }, question);
    const mine = impact.executions.affected.find((e) => e.execution_id === one);
    expect(mine).toEqual({
      execution_id: one,
      status: 'running',
      waiting_for: null,
      workflow_version: '1.0.0',
      next_step: 'hold',
      changes: [
        {
          change: 'step_moved_before',
          step: 'after',
          detail: 'step "after" moves before a step this run already finished',
          introduced: true,
        },
        {
          change: 'step_renamed',
          step: 'last',
          detail: 'step "last" is renamed "last2"',
          introduced: true,
        },
      ],
    });
    expect(impact.executions).toMatchObject({ running: 2, waiting: 0, capped: false });
    expect(impact.summary).toBe(
      '2 executions in progress (they keep the revision they started on); 2 meet a change of the steps they have left',
    );
    // Running executions are reported, never refused: they are past any approval.
    expect(impact.breaking).toBe(false);
    expect(impact.steps).toEqual([
      { change: 'renamed', step: 'last', to: 'last2' },
      { change: 'moved', step: 'after' },
    ]);

    const capped = await deployImpact({ executions: store.executions, limit: 1 }, question);
    expect(capped.executions).toMatchObject({ limit: 1, capped: true });
    expect(capped.summary).toMatch(/^at least /);
    release();
  });
});
