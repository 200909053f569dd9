import { keyPrincipal } from '@weft/core';
import type { StoredExecution } from '@weft/core';
import type { TestExecutionsStore } from '@weft/store';
import { loadRequestedWorkflow } from '../executions/definition.js';
import type { RuntimeOptions } from '../options.js';
import type { WaitRequest } from '../waits/wait-events.js';
import { buildRuntimeHarness, testActions, workflowText, type RuntimeHarness } from './harness.js';

const url = process.env['WEFT_TEST_DATABASE_URL'];

/** The stores the wait tests run on: SQLite always, PostgreSQL with `WEFT_TEST_DATABASE_URL`. */
export const WAIT_STORES = [
  { name: 'SQLite', kind: 'sqlite' as const, url: undefined, skip: false },
  {
    name: 'PostgreSQL (set WEFT_TEST_DATABASE_URL to run)',
    kind: 'postgres' as const,
    url,
    skip: !url,
  },
];

/** A two-step workflow: `a` then `b`, each counting its calls in {@link WaitWorld.calls}. */
export const TWO_STEPS = workflowText(
  `      - { name: a, plugin: p, action: step, input: { v: 1 } }
      - { name: b, plugin: p, action: step, input: { v: '{{ steps.a.output.v + 1 }}' } }
`,
  `    outputs: { last: { value: '{{ steps.b.output.v }}' } }
`,
);

export { ManualClock } from '@weft/core/testing';

/** Replicas of a runtime over one store, and the steps they ran. */
export interface WaitWorld {
  calls: string[];
  /** A started runtime (one replica) over the store. */
  replica(options?: Partial<RuntimeOptions>): Promise<RuntimeHarness>;
  /** Starts a run of {@link TWO_STEPS} for alice on `on`, waiting as `wait` says. */
  startWaiting(on: RuntimeHarness, wait: WaitRequest, extra?: object): Promise<StoredExecution>;
  /** Closes every replica. */
  close(): Promise<void>;
}

/** A {@link WaitWorld} over `store`. */
export function waitWorld(store: TestExecutionsStore): WaitWorld {
  const calls: string[] = [];
  const replicas: RuntimeHarness[] = [];
  const actions = testActions({
    'p.step': (input) => (calls.push(`step ${String(input['v'])}`), input),
  });
  return {
    calls,
    async replica(options = {}) {
      const harness = await buildRuntimeHarness(store.executions, actions, options);
      replicas.push(harness);
      return harness;
    },
    async startWaiting(on, wait, extra = {}) {
      const started = await on.runtime.startExecution({
        ...loadRequestedWorkflow({ workflow: TWO_STEPS }),
        trigger: { type: 'api' },
        principal: keyPrincipal({ keyId: 'ka', owner: 'alice' }),
        wait,
        ...extra,
      });
      return started.execution;
    },
    async close() {
      for (const replica of replicas.splice(0)) await replica.close();
    },
  };
}
