import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { run, runAnswering } from '../test-support.js';

const FLOW = `workflows:
  - name: payout
    authorization:
      roles: [finance, ops]
      permissions: ['payments:write']
    steps: [{ name: pay, plugin: bank, action: pay }]
    outputs: { paid: { value: '{{ steps.pay.output.paid }}' } }
  - name: caller
    steps: [{ name: audit, workflow: ledger }]
  - name: ledger
    authorization: { roles: [ledger] }
    steps: [{ name: note, plugin: bank, action: pay }]
  - name: open
    steps:
      - name: risky
        plugin: bank
        action: pay
        authorization: { permissions: ['bank:use'] }
        continue_on_error: true
      - { name: after, plugin: bank, action: pay }
  - name: strict
    steps:
      - { name: guarded, plugin: bank, action: pay, authorization: { permissions: ['bank:admin'] } }
  - name: gated
    authorization:
      roles: [ops]
      approval: { required: true, approvers: [lead] }
    steps: [{ name: go, plugin: bank, action: pay }]
    testing:
      dryRun: { mockData: { bank: { pay: { paid: mocked } } } }
      fixtures:
        - { name: pays, inputs: {}, expectedOutputs: {} }
`;

let dir: string;
let flow: string;
let handlers: string;
let calls: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'weft-cli-authz-'));
  flow = join(dir, 'flow.yaml');
  writeFileSync(flow, FLOW);
  calls = join(dir, 'calls.log');
  handlers = join(dir, 'handlers.mjs');
  writeFileSync(
    handlers,
    `import { appendFileSync } from 'node:fs';\nexport default (weft) => weft.registerHandler('bank.pay', (input, context) => { appendFileSync(${JSON.stringify(calls)}, context.stepName + '\\n'); return { paid: true }; });\n`,
  );
});

/** `weft workflow run flow.yaml -w <name> --require handlers ...args`. */
const runFlow = (name: string, ...args: string[]) =>
  run('workflow', 'run', flow, '-w', name, '--require', handlers, ...args);

const stepsRun = () => (existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n') : []);

describe('weft workflow run: authorization of local runs', () => {
  it('exits 2 without an identity, naming the missing roles and permissions, before any step', async () => {
    const result = await runFlow('payout');
    expect(result.code).toBe(2);
    expect(result.err).toContain(
      'workflow "payout" has authorization enabled and this run has no identity: it needs one of the roles finance, ops and the permissions payments:write',
    );
    expect(result.err).toContain('pass --identity <jwt|@file>');
    expect(result.out).toBe('');
    expect(stepsRun()).toEqual([]);
  });

  it('runs as the roles and permissions declared with --role and --permission', async () => {
    const result = await runFlow(
      'payout',
      '--role',
      'ops',
      '--permission',
      'payments:write',
      '-o',
      'json',
    );
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toMatchObject({ status: 'completed', outputs: { paid: true } });
    expect(stepsRun()).toEqual(['pay']);
  });

  it('exits 2 when the declared grants fall short, saying what the run holds', async () => {
    const result = await runFlow('payout', '--role', 'dev', '--permission', 'payments:read');
    expect(result.code).toBe(2);
    expect(result.err).toContain(
      'not authorized to run workflow "payout": it needs one of the roles finance, ops and the permissions payments:write',
    );
    expect(result.err).toContain(
      `running as ${userInfo().username} (local) with roles: dev; permissions: payments:read`,
    );
    expect(stepsRun()).toEqual([]);
  });

  it("checks a subworkflow's own block before the run starts", async () => {
    const refused = await runFlow('caller', '--role', 'ops');
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('its subworkflow "ledger" needs one of the roles ledger');
    expect(stepsRun()).toEqual([]);
    expect((await runFlow('caller', '--role', 'ledger')).code).toBe(0);
  });

  it('refuses a step lacking its permissions: continue_on_error goes on, otherwise exit 1', async () => {
    const open = await runFlow('open', '--permission', 'payments:write', '-o', 'json');
    expect(open.code).toBe(0);
    const doc = JSON.parse(open.out) as {
      steps: Record<string, { status: string; error?: object }>;
    };
    expect(doc.steps['risky']).toMatchObject({
      status: 'failed',
      error: { code: 'FORBIDDEN', details: { missing_permissions: ['bank:use'] } },
    });
    expect(stepsRun()).toEqual(['after']);
    const strict = await runFlow('strict');
    expect(strict.code).toBe(1);
    expect(strict.out).toContain('needs the permissions bank:admin and the run has no identity');
  });

  it('checks every workflow of --all before any of them runs', async () => {
    const result = await run('workflow', 'run', flow, '--all', '--require', handlers);
    expect(result.code).toBe(2);
    expect(result.err).toContain('workflow "payout" has authorization enabled');
    expect(stepsRun()).toEqual([]);
  });

  it('checks a dry run too', async () => {
    const result = await runFlow('gated', '--dry-run');
    expect(result.code).toBe(2);
    expect(result.err).toContain('workflow "gated" has authorization enabled');
  });

  it('refuses bad --role and --permission values, naming the flag', async () => {
    const role = await runFlow('payout', '--role', 'has space');
    expect(role.code).toBe(2);
    expect(role.err).toContain("option '--role <role>' argument 'has space' is invalid");
    const permission = await runFlow('payout', '--permission', 'Payments');
    expect(permission.code).toBe(2);
    expect(permission.err).toContain("option '--permission <resource:verb>'");
    expect(permission.err).toContain('<resource>:<verb>');
  });

  it('refuses --identity together with --role, and identity flags with --cloud', async () => {
    const both = await runFlow('payout', '--identity', 'a.b.c', '--role', 'ops');
    expect(both.code).toBe(2);
    expect(both.err).toContain('--identity and --role/--permission exclude each other');
    const cloud = await run('workflow', 'run', flow, '-w', 'payout', '--cloud', '--role', 'ops');
    expect(cloud.code).toBe(2);
    expect(cloud.err).toContain('with --cloud the server authorizes the caller of --api-key');
  });
});

describe('weft workflow run: approvals of local runs', () => {
  it('exits 2 explaining --approve when stdin is not a terminal', async () => {
    const result = await runFlow('gated', '--role', 'ops');
    expect(result.code).toBe(2);
    expect(result.err).toContain(
      'workflow "gated" requires approval by one of: lead, and stdin is not a terminal to ask on: pass --approve',
    );
    expect(stepsRun()).toEqual([]);
  });

  it('runs with --approve without asking', async () => {
    const result = await runAnswering(
      [],
      'workflow',
      'run',
      flow,
      '-w',
      'gated',
      '--require',
      handlers,
      '--role',
      'ops',
      '--approve',
    );
    expect(result.code).toBe(0);
    expect(result.asked).toEqual([]);
    expect(stepsRun()).toEqual(['go']);
  });

  it('asks on the terminal, and runs on yes', async () => {
    const args = ['workflow', 'run', flow, '-w', 'gated', '--require', handlers, '--role', 'ops'];
    const yes = await runAnswering(['y'], ...args);
    expect(yes.asked).toEqual([`approve run of gated as ${userInfo().username}? [y/N] `]);
    expect(yes.err).toContain('workflow "gated" requires approval by one of: lead');
    expect(yes.code).toBe(0);
    expect(stepsRun()).toEqual(['go']);
  });

  it('exits 1 when the answer is no (or nothing), before any step', async () => {
    const args = ['workflow', 'run', flow, '-w', 'gated', '--require', handlers, '--role', 'ops'];
    const no = await runAnswering([''], ...args);
    expect(no.code).toBe(1);
    expect(no.err).toContain(`the run of workflow "gated" was rejected by ${userInfo().username}`);
    expect(stepsRun()).toEqual([]);
  });
});

describe('weft workflow test: fixtures of guarded workflows', () => {
  it('exits 2 without an identity and passes with the declared grants and --approve', async () => {
    const refused = await run('workflow', 'test', flow, '--all-fixtures', '--dry-run');
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('workflow "gated" has authorization enabled');
    const passed = await run(
      'workflow',
      'test',
      flow,
      '--all-fixtures',
      '--dry-run',
      '--role',
      'ops',
      '--approve',
    );
    expect(passed.err).toBe('');
    expect(passed.out).toContain('pass gated › pays');
    expect(passed.code).toBe(0);
  });

  it('fails a fixture whose approval is rejected on the terminal', async () => {
    const args = ['workflow', 'test', flow, '--all-fixtures', '--dry-run', '--role', 'ops'];
    const result = await runAnswering(['n'], ...args);
    expect(result.code).toBe(1);
    expect(result.out).toContain('FAIL gated › pays');
    expect(result.out).toContain('not run: CANCELED the run of workflow "gated" was rejected');
  });
});
