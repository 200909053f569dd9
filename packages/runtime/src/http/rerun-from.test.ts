import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keyPrincipal, UnauthorizedError, type ExecutionRecord, type Principal } from '@weft/core';
import { openTestExecutionsStore, type TestExecutions } from '@weft/store';
import type { RuntimeOptions } from '../options.js';
import { buildRuntimeHarness, testActions, type RuntimeHarness } from '../test-support/harness.js';

/** Three steps; `charge` fails its first call. `receipt` reads what `first` answered. */
const THREE = `workflows:
  - name: order
    inputs: { n: { type: number, required: true } }
    steps:
      - { name: first, plugin: shop, action: quote, input: { n: '{{ inputs.n }}' } }
      - { name: charge, plugin: shop, action: charge, input: { price: '{{ steps.first.output.price }}' } }
      - { name: receipt, type: transform, input: { price: '{{ steps.first.output.price }}', charged: '{{ steps.charge.output.ok }}' } }
      - name: fan
        parallel:
          - { name: left, type: transform, input: { v: 1 } }
          - { name: right, type: transform, input: { v: 2 } }
    outputs:
      price: { value: '{{ steps.receipt.output.price }}' }
`;
const GUARDED = `workflows:
  - name: guarded
    authorization:
      enabled: true
      approval: { required: true, approvers: [lead], timeout: 600 }
    steps:
      - { name: first, plugin: shop, action: quote, input: { n: 1 } }
      - { name: charge, plugin: shop, action: charge, input: {} }
`;

const HOLD = `workflows:
  - name: hold
    steps:
      - { name: wait, plugin: shop, action: hold, input: {} }
`;

const CALLERS: Record<string, Principal> = {
  alice: keyPrincipal({ keyId: 'ka', owner: 'acme', name: 'alice' }),
  lead: keyPrincipal({ keyId: 'kl', owner: 'acme', name: 'lead', roles: ['lead'] }),
  bob: keyPrincipal({ keyId: 'kb', owner: 'other', name: 'bob' }),
};

for (const kind of ['memory', 'sqlite'] as const) {
  describe(`rerun from a step (${kind} store)`, () => {
    let store: TestExecutions;
    let h: RuntimeHarness;
    let calls: Record<string, number>;

    let open: () => void = () => {};
    let gate: Promise<void>;

    async function build(options: Partial<RuntimeOptions> = {}): Promise<RuntimeHarness> {
      const actions = testActions({
        'shop.hold': () => gate.then(() => ({})),
        'shop.quote': (input) => {
          calls['quote']!++;
          return { price: (input['n'] as number) * 10, call: calls['quote'] };
        },
        'shop.charge': () => {
          if (calls['charge']!++ === 0) throw new Error('card declined');
          return { ok: true };
        },
      });
      return buildRuntimeHarness(store.executions, actions, {
        authenticate: async (header) => {
          const principal = header ? CALLERS[header.replace(/^Bearer /, '')] : undefined;
          if (!principal) throw new UnauthorizedError('not valid', { reason: 'invalid' });
          return principal;
        },
        ...options,
      });
    }

    beforeEach(async () => {
      store = await openTestExecutionsStore(kind);
      calls = { quote: 0, charge: 0 };
      gate = Promise.resolve();
      h = await build();
    });

    afterEach(async () => {
      open();
      await h.close();
      await store.dispose();
    });

    const as = (who: string) => ({ authorization: `Bearer ${who}` });

    async function start(workflow: string, who = 'alice'): Promise<string> {
      const response = await h.app.inject({
        method: 'POST',
        url: '/workflows/executions',
        headers: as(who),
        payload: { workflow, inputs: workflow === THREE ? { n: 4 } : {} },
      });
      expect(response.statusCode, response.body).toBe(202);
      return response.json<{ execution_id: string }>().execution_id;
    }

    const rerun = (id: string, body?: object, who = 'alice') =>
      h.app.inject({
        method: 'POST',
        url: `/workflows/executions/${id}/rerun`,
        headers: as(who),
        ...(body ? { payload: body } : {}),
      });

    async function ended(id: string): Promise<ExecutionRecord> {
      for (let i = 0; i < 300; i++) {
        const record = (
          await h.app.inject({ url: `/workflows/executions/${id}`, headers: as('alice') })
        ).json<ExecutionRecord>();
        if (!['pending', 'running', 'waiting'].includes(record.status)) return record;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`execution ${id} did not end`);
    }

    async function failedOnce(): Promise<string> {
      const id = await start(THREE);
      expect(await ended(id)).toMatchObject({ status: 'failed' });
      expect(calls).toEqual({ quote: 1, charge: 1 });
      return id;
    }

    it('resumes from the failed step: earlier steps are taken from the journal, not run', async () => {
      const original = await failedOnce();
      const response = await rerun(original, { from: 'failed' });
      expect(response.statusCode, response.body).toBe(202);
      const started = response.json<ExecutionRecord>();
      expect(started.execution_id).not.toBe(original);
      expect(started.resumed_from).toEqual({ execution_id: original, step: 'charge' });
      const record = await ended(started.execution_id);
      expect(record).toMatchObject({
        status: 'completed',
        resumed_from: { execution_id: original, step: 'charge' },
        result: { outputs: { price: 40 } },
      });
      expect(record.result?.steps).toMatchObject({
        first: { output: { price: 40, call: 1 } },
        receipt: { output: { price: 40, charged: true } },
      });
      expect(calls).toEqual({ quote: 1, charge: 2 });
    });

    it('resumes from a named step; without from it runs every step again', async () => {
      const original = await failedOnce();
      const named = await rerun(original, { from: 'charge' });
      expect(named.statusCode, named.body).toBe(202);
      expect(await ended(named.json<{ execution_id: string }>().execution_id)).toMatchObject({
        status: 'completed',
      });
      expect(calls).toEqual({ quote: 1, charge: 2 });
      const whole = await rerun(original);
      expect(whole.statusCode, whole.body).toBe(202);
      expect(whole.json()).not.toHaveProperty('resumed_from');
      await ended(whole.json<{ execution_id: string }>().execution_id);
      expect(calls).toEqual({ quote: 2, charge: 3 });
    });

    it('resumes from its journal when it is claimed later (no free run slot at its start)', async () => {
      const original = await failedOnce();
      await h.close();
      h = await build({ maxConcurrent: 1 });
      gate = new Promise((resolve) => (open = resolve));
      const holding = await start(HOLD);
      const response = await rerun(original, { from: 'failed' });
      expect(response.statusCode, response.body).toBe(202);
      open();
      await ended(holding);
      expect(await ended(response.json<{ execution_id: string }>().execution_id)).toMatchObject({
        status: 'completed',
        result: { outputs: { price: 40 } },
      });
      expect(calls).toEqual({ quote: 1, charge: 2 });
    });

    it('refuses an unknown step, a step inside a parallel block, and a step after the failure', async () => {
      const original = await failedOnce();
      const refusal = async (from: string) => {
        const response = await rerun(original, { from });
        expect(response.statusCode, response.body).toBe(400);
        const body = response.json<{
          code: string;
          message: string;
          details: Record<string, unknown>;
        }>();
        expect(body.code).toBe('VALIDATION');
        expect(body.details.field).toBe('from');
        return body;
      };
      expect((await refusal('nope')).details.constraint).toBe('unknown_step');
      const parallel = await refusal('left');
      expect(parallel.details).toMatchObject({ constraint: 'inside_parallel', block: 'fan' });
      expect(parallel.message).toContain('parallel block "fan"');
      const later = await refusal('receipt');
      expect(later.details).toMatchObject({
        constraint: 'earlier_step_not_reusable',
        step: 'charge',
      });
      expect(calls).toEqual({ quote: 1, charge: 1 });
    });

    it('refuses from=failed when the original did not fail', async () => {
      const original = await failedOnce();
      const fixed = await rerun(original, { from: 'failed' });
      const id = fixed.json<{ execution_id: string }>().execution_id;
      expect(await ended(id)).toMatchObject({ status: 'completed' });
      const refused = await rerun(id, { from: 'failed' });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({
        code: 'VALIDATION',
        details: { field: 'from', constraint: 'no_failed_step' },
      });
    });

    it("answers 404 for another owner's execution, from or not", async () => {
      const original = await failedOnce();
      expect((await rerun(original, { from: 'failed' }, 'bob')).statusCode).toBe(404);
      expect((await rerun(original, undefined, 'bob')).statusCode).toBe(404);
    });

    it('waits for approval like any start, then resumes from its journal', async () => {
      const original = await start(GUARDED, 'alice');
      const approve = (id: string) =>
        h.app.inject({
          method: 'POST',
          url: `/workflows/executions/${id}/approve`,
          headers: as('lead'),
          payload: {},
        });
      expect((await approve(original)).statusCode).toBe(200);
      expect(await ended(original)).toMatchObject({ status: 'failed' });
      const response = await rerun(original, { from: 'failed' });
      expect(response.statusCode, response.body).toBe(202);
      const resumed = response.json<{ execution_id: string; status: string }>();
      expect(resumed.status).toBe('waiting');
      expect((await approve(resumed.execution_id)).statusCode).toBe(200);
      expect(await ended(resumed.execution_id)).toMatchObject({
        status: 'completed',
        resumed_from: { execution_id: original, step: 'charge' },
      });
      expect(calls).toEqual({ quote: 1, charge: 2 });
    });
  });
}
