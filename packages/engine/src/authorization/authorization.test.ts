import { describe, expect, it } from 'vitest';
import { localPrincipal } from '@weft/core';
import { runWorkflow } from '../run/run-workflow.js';
import { pickWorkflow } from '../run/workflow-versions.js';
import { TestInvoker } from '../test-support/invoker.js';
import { load } from '../test-support/load.js';
import type { WorkflowDefinition } from '../model.js';
import { checkWorkflowAuthorization, forbiddenError } from './workflow-check.js';
import { stepPermissions, type StepRefusal } from './step-permissions.js';

const FILE = `workflows:
  - name: payout
    authorization:
      enabled: true
      roles: [finance, ops]
      permissions: ['payments:write']
      approval: { required: true, approvers: [lead] }
    steps:
      - name: audit
        workflow: ledger
  - name: ledger
    authorization:
      roles: [ledger]
    steps:
      - name: note
        type: transform
        input: { ok: true }
  - name: open
    authorization: { enabled: false, roles: [nobody] }
    steps:
      - name: pay
        plugin: bank
        action: pay
        authorization: { permissions: ['payments:write', 'bank:use'] }
        continue_on_error: true
      - name: after
        type: transform
        input: { ran: true }
`;

function workflows(): WorkflowDefinition[] {
  const result = load(FILE);
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return result.workflows;
}

function byName(name: string): WorkflowDefinition {
  return workflows().find((w) => w.name === name)!;
}

const resolve = (name: string, range: string | undefined) => pickWorkflow(workflows(), name, range);

describe('checkWorkflowAuthorization', () => {
  it('refuses a caller without one of the roles, naming only what is missing', () => {
    const caller = localPrincipal({ roles: ['dev'], permissions: ['payments:write', 'other:x'] });
    const check = checkWorkflowAuthorization(byName('payout'), caller, resolve);
    expect(check.refusal).toEqual({
      workflow: 'payout',
      required: { roles: ['finance', 'ops'], permissions: ['payments:write'] },
      missing_roles: ['finance', 'ops'],
      missing_permissions: [],
    });
    expect(check.approval).toBeUndefined();
  });

  it("checks a subworkflow's own block (enabled by default) after the caller's", () => {
    const caller = localPrincipal({ roles: ['ops'], permissions: ['payments:write'] });
    const check = checkWorkflowAuthorization(byName('payout'), caller, resolve);
    expect(check.refusal).toMatchObject({ workflow: 'ledger', missing_roles: ['ledger'] });
    const error = forbiddenError(check.refusal!, true, 'payout');
    expect(error.code).toBe('FORBIDDEN');
    expect(error.message).toContain('subworkflow "ledger"');
    expect(error.details).toMatchObject({ missing_roles: ['ledger'], missing_permissions: [] });
  });

  it('allows a caller meeting every block and gives the approval asked for', () => {
    const caller = localPrincipal({ roles: ['ops', 'ledger'], permissions: ['payments:*'] });
    const check = checkWorkflowAuthorization(byName('payout'), caller, resolve);
    expect(check).toEqual({
      guarded: true,
      refusal: undefined,
      approval: { approvers: ['lead'], timeoutSeconds: 86_400 },
    });
  });

  it('refuses everything when there is no principal (fail closed)', () => {
    const check = checkWorkflowAuthorization(byName('payout'), undefined, resolve);
    expect(check.refusal?.missing_permissions).toEqual(['payments:write']);
    expect(forbiddenError(check.refusal!, false, 'payout').details).toMatchObject({
      reason: 'no_identity',
    });
  });

  it('ignores a block with enabled: false', () => {
    const check = checkWorkflowAuthorization(byName('open'), undefined, resolve);
    expect(check).toEqual({ guarded: false, refusal: undefined, approval: undefined });
  });
});

describe('stepPermissions', () => {
  async function runOpen(principal: ReturnType<typeof localPrincipal> | undefined) {
    const invoker = new TestInvoker({ 'bank.pay': () => ({ paid: true }) });
    const denied: StepRefusal[] = [];
    const result = await runWorkflow(
      byName('open'),
      {},
      {
        invoker,
        ...(principal ? { principal } : {}),
        interceptors: [stepPermissions({ onDeny: (refusal) => void denied.push(refusal) })],
      },
    );
    return { result, invoker, denied };
  }

  it('fails the step with FORBIDDEN before it runs; continue_on_error lets the run go on', async () => {
    const { result, invoker, denied } = await runOpen(
      localPrincipal({ permissions: ['payments:write'] }),
    );
    expect(invoker.calls).toHaveLength(0);
    expect(result.status).toBe('completed');
    expect(result.steps.pay).toMatchObject({
      status: 'failed',
      error: {
        code: 'FORBIDDEN',
        details: { step: 'pay', missing_permissions: ['bank:use'], missing_roles: [] },
      },
    });
    expect(result.steps.after?.output).toEqual({ ran: true });
    expect(denied.map((d) => d.missing)).toEqual([['bank:use']]);
  });

  it('runs the step when the principal holds every permission', async () => {
    const { result, invoker } = await runOpen(
      localPrincipal({ permissions: ['payments:write', 'bank:use'] }),
    );
    expect(invoker.calls).toHaveLength(1);
    expect(result.steps.pay?.status).toBe('success');
  });

  it('refuses the step of a run without a principal', async () => {
    const { result, invoker } = await runOpen(undefined);
    expect(invoker.calls).toHaveLength(0);
    expect(result.steps.pay?.error).toMatchObject({
      code: 'FORBIDDEN',
      details: { reason: 'no_identity', missing_permissions: ['payments:write', 'bank:use'] },
    });
  });
});
