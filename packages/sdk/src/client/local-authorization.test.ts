import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { localPrincipal, type Principal } from '@weft/core';
import { createMock, type MockWeft } from '../testing/index.js';
import type { ApprovalRequest, ApproveRun } from './local-authorization.js';
import { Weft } from './weft.js';

const FLOW = `workflows:
  - name: payout
    version: 1.2.0
    inputs: { amount: { type: number, required: true } }
    authorization:
      enabled: true
      roles: [finance, ops]
      permissions: ['payments:write']
    steps:
      - { name: pay, plugin: bank, action: pay, input: { amount: '{{ inputs.amount }}' } }
  - name: guarded-child
    authorization: { roles: [ledger] }
    steps: [{ name: note, plugin: ledger, action: note }]
  - name: caller
    steps:
      - { name: first, plugin: bank, action: ping }
      - { name: audit, workflow: guarded-child }
  - name: open
    steps:
      - name: risky
        plugin: bank
        action: pay
        authorization: { permissions: ['bank:use'] }
        continue_on_error: true
      - { name: after, type: transform, input: { ran: true } }
    outputs: { ran: { value: '{{ steps.after.output.ran }}' } }
    testing: { dryRun: { mockData: { bank: { pay: { paid: true } } } } }
  - name: gated
    inputs: { n: { type: number, required: true } }
    authorization:
      roles: [ops]
      approval: { required: true, approvers: [lead], timeout: 60 }
    steps: [{ name: go, plugin: bank, action: ping }]
`;

const file = join(mkdtempSync(join(tmpdir(), 'weft-sdk-authz-')), 'flow.yaml');
writeFileSync(file, FLOW);

async function client(
  identity?: Principal,
  approve?: ApproveRun,
  dryRun = false,
): Promise<MockWeft> {
  const weft = createMock({
    ...(identity ? { identity } : {}),
    ...(approve ? { approve } : {}),
  });
  if (!dryRun) {
    weft.mockAction('bank.pay', { paid: true });
    weft.mockAction('bank.ping', { ok: true });
    weft.mockAction('ledger.note', { noted: true });
  }
  await weft.loadWorkflows(file);
  return weft;
}

const ops = localPrincipal({ subject: 'ada', roles: ['ops'], permissions: ['payments:*'] });

afterEach(() => void vi.useRealTimers());

describe('local runs of workflows with authorization', () => {
  it('refuses a run without identity before any step, naming what is missing', async () => {
    const weft = await client();
    const refused = weft.execute('payout', { amount: 5 });
    await expect(refused).rejects.toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringContaining('this run has no identity') as string,
      details: {
        reason: 'no_identity',
        workflow: 'payout',
        missing_roles: ['finance', 'ops'],
        missing_permissions: ['payments:write'],
      },
    });
    expect(weft.calls).toHaveLength(0);
  });

  it('refuses an identity lacking a role and runs one that meets the block', async () => {
    const dev = await client(localPrincipal({ roles: ['dev'], permissions: ['payments:write'] }));
    await expect(dev.execute('payout', { amount: 5 })).rejects.toMatchObject({
      code: 'FORBIDDEN',
      details: { reason: 'missing_grants', missing_roles: ['finance', 'ops'] },
    });
    expect(dev.calls).toHaveLength(0);
    const allowed = await client(ops);
    const result = await allowed.execute('payout', { amount: 5 });
    expect(result.status).toBe('completed');
    expect(allowed.callsOf('bank.pay')).toEqual([{ amount: 5 }]);
  });

  it("checks a subworkflow's own block before the caller's first step", async () => {
    const weft = await client(ops);
    await expect(weft.execute('caller')).rejects.toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringContaining('its subworkflow "guarded-child"') as string,
      details: { workflow: 'guarded-child', missing_roles: ['ledger'] },
    });
    expect(weft.calls).toHaveLength(0);
    const ledger = await client(localPrincipal({ roles: ['ledger'] }));
    expect((await ledger.execute('caller')).status).toBe('completed');
  });

  it('checks step permissions just before the step; continue_on_error lets the run go on', async () => {
    const weft = await client(localPrincipal({ permissions: ['payments:write'] }));
    const result = await weft.execute('open');
    expect(result.status).toBe('completed');
    expect(result.steps['risky']).toMatchObject({
      status: 'failed',
      error: { code: 'FORBIDDEN', details: { step: 'risky', missing_permissions: ['bank:use'] } },
    });
    expect(result.outputs).toEqual({ ran: true });
    expect(weft.calls).toHaveLength(0);
    const allowed = await client(localPrincipal({ permissions: ['bank:*'] }));
    expect((await allowed.execute('open')).steps['risky']?.status).toBe('success');
  });

  it('checks step permissions in a dry run too, before any mock answers', async () => {
    const weft = await client(undefined, undefined, true);
    const result = await weft.execute('open', {}, { dryRun: true });
    expect(result.steps['risky']?.error).toMatchObject({
      code: 'FORBIDDEN',
      details: { reason: 'no_identity' },
    });
    const allowed = await client(localPrincipal({ permissions: ['bank:use'] }), undefined, true);
    const mocked = await allowed.execute('open', {}, { dryRun: true });
    expect(mocked.steps['risky']?.output).toEqual({ paid: true });
  });

  it('tells whether a run may start with checkAuthorization, by name or definition', async () => {
    const weft = await client(ops);
    expect(weft.checkAuthorization('gated')).toEqual({
      guarded: true,
      refusal: undefined,
      approval: { approvers: ['lead'], timeoutSeconds: 60 },
    });
    expect(weft.checkAuthorization('open').guarded).toBe(false);
    expect(() => weft.checkAuthorization('guarded-child')).toThrow(/one of the roles ledger/);
  });

  it('checks hybrid runs here (the SDK runs them), and leaves cloud runs to the server', async () => {
    // Nothing listens on port 9: a request fails with UNAVAILABLE, a local refusal is FORBIDDEN.
    const server = { apiKey: 'wk_test', cloudUrl: 'http://127.0.0.1:9' };
    const hybrid = new Weft({ ...server, executionMode: 'hybrid', logLevel: 'silent' });
    await hybrid.loadWorkflows(file);
    await expect(hybrid.execute('payout', { amount: 5 })).rejects.toMatchObject({
      code: 'FORBIDDEN',
      details: { reason: 'no_identity' },
    });
    const cloud = new Weft({ ...server, executionMode: 'cloud', logLevel: 'silent' });
    await cloud.loadWorkflows(file);
    const sent = await cloud.execute('payout', { amount: 5 }).catch((error: unknown) => error);
    expect(sent).toMatchObject({ code: 'UNAVAILABLE' }); // it went to the server unchecked
    await Promise.all([hybrid.close(), cloud.close()]);
  });

  it('refuses an identity that is not a principal', () => {
    expect(() => new Weft({ identity: { roles: 'ops' } as never })).toThrow(
      expect.objectContaining({ details: { field: 'identity', constraint: 'type' } }),
    );
  });
});

describe('approvals of local runs', () => {
  it('asks approve with the workflow, approvers, timeout and principal, then runs', async () => {
    const asked: Omit<ApprovalRequest, 'signal'>[] = [];
    const weft = await client(ops, ({ signal, ...request }) => {
      expect(signal.aborted).toBe(false);
      asked.push(request);
      return true;
    });
    const result = await weft.execute('gated', { n: 1 });
    expect(result.status).toBe('completed');
    expect(asked).toEqual([
      {
        workflow: { name: 'gated', version: '1.0.0' },
        approvers: ['lead'],
        timeoutSeconds: 60,
        principal: ops,
      },
    ]);
  });

  it('cancels the run on a rejection, naming who rejected it, before any step', async () => {
    const weft = await client(ops, async () => ({ approved: false, by: 'grace', comment: 'no' }));
    await expect(weft.execute('gated', { n: 1 })).rejects.toMatchObject({
      code: 'CANCELED',
      message: 'the run of workflow "gated" was rejected by grace',
      details: { reason: 'approval_rejected', rejected_by: 'grace', comment: 'no' },
    });
    expect(weft.calls).toHaveLength(0);
    const plain = await client(ops, () => false);
    await expect(plain.execute('gated', { n: 1 })).rejects.toMatchObject({
      details: { rejected_by: 'ada' },
    });
  });

  it('refuses a run that needs approval when there is no approve callback', async () => {
    const weft = await client(ops);
    await expect(weft.execute('gated', { n: 1 })).rejects.toMatchObject({
      code: 'FORBIDDEN',
      details: { reason: 'approval_required', approvers: ['lead'], timeout_seconds: 60 },
    });
    expect(weft.calls).toHaveLength(0);
  });

  it('does not ask for approval of a run whose inputs are invalid', async () => {
    const approve = vi.fn(() => true);
    const weft = await client(ops, approve);
    const result = await weft.execute('gated', { n: 'many' });
    expect(result.error).toMatchObject({ code: 'VALIDATION', details: { field: 'inputs.n' } });
    expect(approve).not.toHaveBeenCalled();
  });

  it('fails with TIMEOUT when no answer comes within the approval timeout', async () => {
    vi.useFakeTimers();
    let aborted: unknown;
    const weft = await client(ops, ({ signal }) => {
      signal.addEventListener('abort', () => (aborted = signal.reason));
      return new Promise<boolean>(() => {});
    });
    const run = weft.execute('gated', { n: 1 });
    const outcome = expect(run).rejects.toMatchObject({
      code: 'TIMEOUT',
      details: { reason: 'approval_timeout', timeout_ms: 60_000 },
    });
    await vi.advanceTimersByTimeAsync(60_000);
    await outcome;
    expect(aborted).toMatchObject({ code: 'TIMEOUT' });
    expect(weft.calls).toHaveLength(0);
  });

  it('ends the wait with CANCELED when the run is canceled', async () => {
    const controller = new AbortController();
    const weft = await client(ops, () => {
      controller.abort();
      return new Promise<boolean>(() => {});
    });
    await expect(
      weft.execute('gated', { n: 1 }, { signal: controller.signal }),
    ).rejects.toMatchObject({ code: 'CANCELED' });
  });
});
