import { afterEach, describe, expect, it } from 'vitest';
import { keyPrincipal, UnauthorizedError, type Principal } from '@weft/core';
import { openTestExecutionsStore, type TestExecutionsStore } from '@weft/store';
import { buildRuntimeHarness, testActions, type RuntimeHarness } from '../test-support/harness.js';
import { WAIT_STORES } from '../test-support/waits.js';
import { MemoryAuditStore } from '../audit/memory-audit-store.js';

const PAYOUT = `workflows:
  - name: payout
    authorization:
      enabled: true
      roles: [finance, ops]
      permissions: ['payments:write']
      approval: { required: true, approvers: [lead], timeout: 60 }
    steps:
      - name: pay
        plugin: bank
        action: pay
        input: { amount: '{{ inputs.amount }}' }
        authorization: { permissions: ['payments:write'] }
      - name: notify
        plugin: bank
        action: notify
        authorization: { permissions: ['mail:send'] }
        continue_on_error: true
    inputs:
      amount: { type: number, required: true }
    outputs:
      paid: { value: '{{ steps.pay.output.paid }}' }
`;

/** Callers: a finance clerk who may pay, two leads (one also finance), an outsider. */
const CALLERS: Record<string, Principal> = {
  clerk: keyPrincipal({
    keyId: 'kc',
    owner: 'acme',
    name: 'clerk',
    roles: ['finance'],
    permissions: ['payments:write'],
  }),
  lead: keyPrincipal({ keyId: 'kl', owner: 'acme', name: 'lead', roles: ['lead'] }),
  paylead: keyPrincipal({
    keyId: 'kp',
    owner: 'acme',
    name: 'paylead',
    roles: ['lead', 'finance'],
    permissions: ['payments:write'],
  }),
  outsider: keyPrincipal({ keyId: 'ko', owner: 'other', name: 'outsider', roles: ['dev'] }),
  /** Another organisation's lead: the same role name, another owner. */
  evillead: keyPrincipal({ keyId: 'ke', owner: 'evil', name: 'lead', roles: ['lead'] }),
};

let store: TestExecutionsStore | undefined;
let h: RuntimeHarness | undefined;
let audit: MemoryAuditStore;

afterEach(async () => {
  await h?.close();
  await store?.dispose();
  h = store = undefined;
});

let now = Date.now();
const clock = {
  now: () => now,
  sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
};

async function harness(kind: 'sqlite' | 'postgres', url: string | undefined, allowSelf = false) {
  now = Date.now();
  store = await openTestExecutionsStore(kind, url);
  audit = new MemoryAuditStore();
  const actions = testActions({ 'bank.pay': () => ({ paid: true }), 'bank.notify': () => ({}) });
  h = await buildRuntimeHarness(store.executions, actions, {
    authenticate: async (header) => {
      const principal = header ? CALLERS[header.replace(/^Bearer /, '')] : undefined;
      if (!principal) throw new UnauthorizedError('not valid', { reason: 'invalid' });
      return principal;
    },
    audit: { store: audit },
    allowSelfApproval: allowSelf,
    clock,
  });
  return { h, actions };
}

const as = (who: string) => ({ authorization: `Bearer ${who}` });

function start(who: string, amount = 5) {
  return h!.app.inject({
    method: 'POST',
    url: '/workflows/executions',
    headers: as(who),
    payload: { workflow: PAYOUT, inputs: { amount } },
  });
}

async function settled(id: string, who = 'clerk') {
  for (let i = 0; i < 200; i++) {
    const answer = await h!.app.inject({
      method: 'GET',
      url: `/workflows/executions/${id}`,
      headers: as(who),
    });
    const record = answer.json();
    if (!['pending', 'running'].includes(record.status)) return record;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`execution ${id} did not settle`);
}

describe.each(WAIT_STORES)('approvals on $name', ({ kind, url, skip }) => {
  it.skipIf(skip)(
    'refuses a caller without the roles: 403 naming only what is missing, nothing stored, audited',
    async () => {
      const { actions } = await harness(kind, url);
      const refused = await start('outsider');
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({
        status: 'error',
        code: 'FORBIDDEN',
        details: { missing_roles: ['finance', 'ops'], missing_permissions: ['payments:write'] },
      });
      expect(JSON.stringify(refused.json())).not.toContain('dev');
      const listed = await h!.app.inject({
        method: 'GET',
        url: '/workflows/executions',
        headers: as('outsider'),
      });
      expect(listed.json().executions).toEqual([]);
      expect(actions.calls).toHaveLength(0);
      const entries = await audit.read({ afterSeq: 0, limit: 10 });
      expect(entries).toMatchObject([
        {
          subject: 'ko',
          credential: 'api_key',
          action: 'execution.start',
          decision: 'deny',
          workflow: 'payout',
          missing: { roles: ['finance', 'ops'], permissions: ['payments:write'] },
        },
      ]);
    },
  );

  it.skipIf(skip)(
    'waits for approval, is listed for approvers only, and runs once approved',
    async () => {
      const { actions } = await harness(kind, url);
      const started = await start('clerk');
      expect(started.statusCode).toBe(202);
      const id = started.json().execution_id as string;
      const waiting = await settled(id);
      expect(waiting).toMatchObject({
        status: 'waiting',
        waiting_for: { kind: 'approval', approvers: ['lead'] },
      });
      expect(actions.calls).toHaveLength(0);

      const forLead = await h!.app.inject({
        method: 'GET',
        url: '/approvals',
        headers: as('lead'),
      });
      expect(
        forLead.json().executions.map((e: { execution_id: string }) => e.execution_id),
      ).toEqual([id]);
      const forOutsider = await h!.app.inject({
        method: 'GET',
        url: '/approvals',
        headers: as('outsider'),
      });
      expect(forOutsider.json().executions).toEqual([]);

      const notApprover = await h!.app.inject({
        method: 'POST',
        url: `/workflows/executions/${id}/approve`,
        headers: as('clerk'),
        payload: {},
      });
      expect(notApprover.statusCode).toBe(403);
      expect(notApprover.json().details).toMatchObject({
        reason: 'not_approver',
        missing_roles: ['lead'],
      });

      const approved = await h!.app.inject({
        method: 'POST',
        url: `/workflows/executions/${id}/approve`,
        headers: as('lead'),
        payload: { comment: 'ok' },
      });
      expect(approved.statusCode).toBe(200);
      const again = await h!.app.inject({
        method: 'POST',
        url: `/workflows/executions/${id}/reject`,
        headers: as('lead'),
      });
      expect(again.statusCode).toBe(409);
      expect(again.json().code).toBe('CONFLICT');

      const done = await settled(id);
      expect(done.status).toBe('completed');
      expect(done.result.outputs).toEqual({ paid: true });
      // The step check ran as the clerk (recorded at the start), after the approval.
      expect(done.result.steps.pay.status).toBe('success');
      expect(done.result.steps.notify).toMatchObject({
        status: 'failed',
        error: { code: 'FORBIDDEN', details: { missing_permissions: ['mail:send'] } },
      });
      expect(actions.calls.map((c) => c.action)).toEqual(['pay']);

      const entries = await audit.read({ afterSeq: 0, limit: 10 });
      // The approval is recorded once the decision is written; the resumed run may record its
      // step check first (the decision makes it claimable on any server at once).
      const decided = entries.map((e) => [e.action, e.decision]);
      expect(decided.slice(0, 2)).toEqual([
        ['execution.start', 'allow'],
        ['execution.approve', 'deny'],
      ]);
      expect(decided.slice(2)).toEqual(
        expect.arrayContaining([
          ['execution.approve', 'approved'],
          ['step.run', 'deny'],
        ]),
      );
      expect(decided).toHaveLength(4);
      const events = await h!.app.inject({
        method: 'GET',
        url: `/workflows/executions/${id}/events`,
        headers: as('clerk'),
      });
      expect(events.body).toContain('approval.requested');
      expect(events.body).toContain('approval.granted');
    },
  );

  it.skipIf(skip)(
    'keeps separation of duties unless allowed, and a rejection cancels the run',
    async () => {
      await harness(kind, url);
      const own = (await start('paylead')).json().execution_id as string;
      const self = await h!.app.inject({
        method: 'POST',
        url: `/workflows/executions/${own}/approve`,
        headers: as('paylead'),
      });
      expect(self.statusCode).toBe(403);
      expect(self.json().details.reason).toBe('own_run');
      const rejected = await h!.app.inject({
        method: 'POST',
        url: `/workflows/executions/${own}/reject`,
        headers: as('lead'),
        payload: { comment: 'not today' },
      });
      expect(rejected.statusCode).toBe(200);
      const [entry] = (await audit.read({ afterSeq: 0, limit: 10 })).slice(-1);
      expect(entry).toMatchObject({ decision: 'rejected', reason: 'rejected: not today' });
      expect(rejected.json()).toMatchObject({
        status: 'canceled',
        error: { code: 'CANCELED', details: { rejected_by: 'lead (kl)', comment: 'not today' } },
      });
      await h!.close();
      await store!.dispose();
      await harness(kind, url, true);
      const mine = (await start('paylead')).json().execution_id as string;
      const allowed = await h!.app.inject({
        method: 'POST',
        url: `/workflows/executions/${mine}/approve`,
        headers: as('paylead'),
      });
      expect(allowed.statusCode).toBe(200);
      expect((await settled(mine, 'paylead')).status).toBe('completed');
    },
  );

  it.skipIf(skip)(
    'an approver of another owner neither lists nor decides: 404 as for an unknown id, the run still waits',
    async () => {
      const { actions } = await harness(kind, url);
      const id = (await start('clerk')).json().execution_id as string;
      expect((await settled(id)).status).toBe('waiting');
      const listed = await h!.app.inject({
        method: 'GET',
        url: '/approvals',
        headers: as('evillead'),
      });
      expect(listed.json()).toEqual({ executions: [], next_cursor: null });
      const unknownId = '01900000-0000-7000-8000-000000000000';
      for (const verdict of ['approve', 'reject']) {
        for (const who of ['evillead', 'outsider']) {
          const decide = (target: string) =>
            h!.app.inject({
              method: 'POST',
              url: `/workflows/executions/${target}/${verdict}`,
              headers: as(who),
              payload: { comment: 'ok' },
            });
          const theirs = await decide(id);
          const unknown = await decide(unknownId);
          expect(theirs.statusCode).toBe(404);
          expect(theirs.body.replaceAll(id, unknownId)).toBe(unknown.body);
        }
      }
      expect((await settled(id)).status).toBe('waiting');
      expect(actions.calls).toHaveLength(0);
      // Nothing decided, nothing refused: only the start is in the log.
      const entries = await audit.read({ afterSeq: 0, limit: 10 });
      expect(entries.map((e) => [e.action, e.decision])).toEqual([['execution.start', 'allow']]);
      const approved = await h!.app.inject({
        method: 'POST',
        url: `/workflows/executions/${id}/approve`,
        headers: as('lead'),
      });
      expect(approved.statusCode).toBe(200);
      const [last] = (await audit.read({ afterSeq: 0, limit: 10 })).slice(-1);
      expect(last).toMatchObject({ decision: 'approved', reason: 'approved' });
    },
  );

  it.skipIf(skip)('answers 404 for an unknown id and 400 for a bad body', async () => {
    await harness(kind, url);
    const unknown = await h!.app.inject({
      method: 'POST',
      url: '/workflows/executions/nope/approve',
      headers: as('lead'),
    });
    expect(unknown.statusCode).toBe(404);
    const id = (await start('clerk')).json().execution_id as string;
    const bad = await h!.app.inject({
      method: 'POST',
      url: `/workflows/executions/${id}/approve`,
      headers: as('lead'),
      payload: { comment: 'x'.repeat(2001) },
    });
    expect(bad.statusCode).toBe(400);
    const extra = await h!.app.inject({
      method: 'POST',
      url: `/workflows/executions/${id}/approve`,
      headers: as('lead'),
      payload: { approve: true },
    });
    expect(extra.statusCode).toBe(400);
    expect((await settled(id)).status).toBe('waiting');
  });

  it.skipIf(skip)(
    'fails with TIMEOUT when nobody decides in time, audited as expired',
    async () => {
      const { actions } = await harness(kind, url);
      const id = (await start('clerk')).json().execution_id as string;
      now += 61_000;
      expect(await h!.runtime.deadlines.expireDue()).toBe(1);
      const ended = await settled(id);
      expect(ended).toMatchObject({
        status: 'failed',
        error: { code: 'TIMEOUT', details: { timeout_ms: 60_000 } },
      });
      expect(actions.calls).toHaveLength(0);
      const late = await h!.app.inject({
        method: 'POST',
        url: `/workflows/executions/${id}/approve`,
        headers: as('lead'),
      });
      expect(late.statusCode).toBe(409);
      const entries = await audit.read({ afterSeq: 0, limit: 10 });
      expect(entries.map((e) => [e.action, e.decision, e.subject])).toEqual([
        ['execution.start', 'allow', 'kc'],
        ['approval.expire', 'expired', 'kc'],
      ]);
    },
  );
});
