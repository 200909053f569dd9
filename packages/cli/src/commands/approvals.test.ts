import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLocalKey, startServer, type RunningServer } from '@weft/server';
import { run } from '../test-support.js';

const PAYOUT = `workflows:
  - name: payout
    authorization:
      enabled: true
      roles: [finance]
      approval: { required: true, approvers: [lead], timeout: 600 }
    inputs:
      amount: { type: number, required: true }
      to: { type: string, default: initech }
      pin: { type: string, secret: true }
    steps:
      - { name: pay, type: transform, input: { paid: '{{ inputs.amount }}' } }
    outputs:
      paid: { value: '{{ steps.pay.output.paid }}' }
`;

const EXAMPLE = fileURLToPath(
  new URL('../../../../examples/approval-payout.yaml', import.meta.url),
);
const dir = mkdtempSync(join(tmpdir(), 'weft-cli-approvals-'));
let server: RunningServer;
const keys: Record<'clerk' | 'lead' | 'outside', string> = { clerk: '', lead: '', outside: '' };

beforeAll(async () => {
  const dataDir = join(dir, 'data');
  server = await startServer({ port: 0, dataDir, logLevel: 'silent' }, { logger: false });
  keys.clerk = (
    await createLocalKey(
      { dataDir },
      { name: 'clerk', owner: 'acme', roles: ['finance'], permissions: ['payments:write'] },
    )
  ).key;
  keys.lead = (
    await createLocalKey({ dataDir }, { name: 'lead', owner: 'acme', roles: ['lead'] })
  ).key;
  // An approver of another owner: a stranger to acme's runs.
  keys.outside = (
    await createLocalKey({ dataDir }, { name: 'auditor', owner: 'hq', roles: ['lead'] })
  ).key;
}, 30_000);
afterEach(() => {
  vi.unstubAllEnvs();
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Starts a payout as the clerk and resolves once it waits for approval. */
async function waitingPayout(amount: number, more: Record<string, unknown> = {}): Promise<string> {
  const headers = { authorization: `Bearer ${keys.clerk}`, 'content-type': 'application/json' };
  const started = await fetch(`${server.url}/workflows/executions`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ workflow: PAYOUT, inputs: { amount, ...more } }),
  });
  const id = ((await started.json()) as { execution_id: string }).execution_id;
  for (let i = 0; i < 200; i++) {
    const record = await fetch(`${server.url}/workflows/executions/${id}`, { headers });
    if (((await record.json()) as { status: string }).status === 'waiting') return id;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`execution ${id} does not wait`);
}

const as = (who: keyof typeof keys) => ['--server', server.url, '--api-key', keys[who]];

describe('weft approvals list', () => {
  it('prints the waiting runs the key may decide as a table, and -o json as the page', async () => {
    const id = await waitingPayout(5);
    const listed = await run('approvals', 'list', ...as('lead'));
    expect(listed.err).toBe('');
    expect(listed.code).toBe(0);
    const [header, first] = listed.out.split('\n');
    expect(header).toMatch(
      /^EXECUTION\s+WORKFLOW\s+WAITS FOR\s+REQUESTED BY\s+SINCE\s+EXPIRES\s+INPUTS$/,
    );
    expect(first).toMatch(
      new RegExp(
        `^${id}\\s+payout\\s+start\\s+clerk\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ\\s+\\d{4}-`,
      ),
    );

    const json = await run('approvals', 'list', ...as('lead'), '-o', 'json');
    const page = JSON.parse(json.out) as { executions: { execution_id: string }[] };
    expect(page).toMatchObject({ next_cursor: null });
    expect(page.executions[0]).toMatchObject({
      execution_id: id,
      status: 'waiting',
      waiting_for: { kind: 'approval', approvers: ['lead'], requested_by: { name: 'clerk' } },
    });
    await run('execution', 'reject', id, ...as('lead'));
  });

  it('shows the inputs of what waits, a secret input masked, in the list and in execution get', async () => {
    const id = await waitingPayout(50000, { pin: '4242-very-secret' });
    for (const shown of [
      await run('approvals', 'list', ...as('lead')),
      await run('approvals', 'list', ...as('lead'), '-o', 'json'),
      await run('execution', 'get', id, ...as('clerk')),
    ]) {
      expect(shown.code, shown.err).toBe(0);
      expect(shown.out).not.toContain('4242');
    }
    const listed = await run('approvals', 'list', ...as('lead'));
    expect(listed.out.split('\n')[1]).toMatch(/amount=50000 to="initech" pin="\*\*\*"$/);
    const got = await run('execution', 'get', id, ...as('clerk'));
    expect(got.out).toMatch(/^inputs:\s+amount=50000 to="initech" pin="\*\*\*"$/m);
    await run('execution', 'reject', id, ...as('lead'));
  });

  it('takes the server and key from the environment, and says when nothing waits', async () => {
    vi.stubEnv('WORKFLOW_REGISTRY_URL', server.url);
    vi.stubEnv('WORKFLOW_REGISTRY_API_KEY', keys.clerk);
    const listed = await run('approvals', 'list');
    expect(listed).toEqual({
      code: 0,
      out: '',
      err: 'no executions wait for your approval\n',
      asked: [],
    });
  });

  it('pages with --limit and prints the --cursor of the next page', async () => {
    const ids = [await waitingPayout(1), await waitingPayout(2)];
    const first = await run('approvals', 'list', '--limit', '1', ...as('lead'));
    expect(first.out).toContain(ids[1]);
    const cursor = /--cursor (\S+)/.exec(first.err)?.[1];
    expect(cursor).toBeDefined();
    const second = await run(
      'approvals',
      'list',
      '--limit',
      '1',
      '--cursor',
      cursor!,
      ...as('lead'),
    );
    expect(second.out).toContain(ids[0]);
    expect(second.err).toBe('');
    for (const id of ids) await run('execution', 'reject', id, ...as('lead'));
  });

  it('refuses a missing key or server (2), a bad --limit (2), and an unreachable server (1)', async () => {
    vi.stubEnv('WORKFLOW_REGISTRY_API_KEY', '');
    vi.stubEnv('WORKFLOW_REGISTRY_URL', '');
    vi.stubEnv('WORKFLOW_CLOUD_URL', '');
    const noKey = await run('approvals', 'list', '--server', server.url);
    expect(noKey.code).toBe(2);
    expect(noKey.err).toBe(
      'error: listing approvals needs an API key: set WORKFLOW_REGISTRY_API_KEY or --api-key\n',
    );
    const noServer = await run('approvals', 'list', '--api-key', keys.lead);
    expect(noServer.code).toBe(2);
    expect(noServer.err).toContain('give --server <url>');
    expect((await run('approvals', 'list', '--limit', '0', ...as('lead'))).code).toBe(2);
    const down = await run('approvals', 'list', '--server', 'http://127.0.0.1:1', '--api-key', 'k');
    expect(down.code).toBe(1);
    expect(down.err).toMatch(/^error: .*\[UNAVAILABLE\]\n$/);
  });
});

describe('weft execution approve / reject', () => {
  it('approves with a comment and prints the status; --wait prints how it ended', async () => {
    const id = await waitingPayout(7);
    const approved = await run('execution', 'approve', id, '--comment', 'ok', ...as('lead'));
    expect(approved.err).toBe('');
    expect(approved.out).toMatch(
      new RegExp(`^execution ${id} approved: (pending|running|completed)\\n$`),
    );
    expect(approved.code).toBe(0);

    const other = await waitingPayout(8);
    const waited = await run('execution', 'approve', other, '--wait', ...as('lead'));
    expect(waited.code).toBe(0);
    expect(waited.out).toBe(`execution ${other} completed\noutputs: {"paid":8}\n`);
    const json = await run('execution', 'approve', other, ...as('lead'), '-o', 'json');
    expect(json.code).toBe(2);
  });

  it('refuses an approver of another owner as for an unknown id, and the run still waits', async () => {
    const id = await waitingPayout(11);
    const approved = await run('execution', 'approve', id, '--wait', ...as('outside'));
    expect(approved).toMatchObject({ code: 2, err: `error: no execution ${id} [NOT_FOUND]\n` });
    expect((await run('approvals', 'list', ...as('outside'))).out).not.toContain(id);
    expect((await run('approvals', 'list', ...as('lead'))).out).toContain(id);
  });

  it('rejects: the execution ends canceled; -o json prints the record', async () => {
    const id = await waitingPayout(9);
    const rejected = await run(
      'execution',
      'reject',
      id,
      '--comment',
      'no',
      ...as('lead'),
      '-o',
      'json',
    );
    expect(rejected.code).toBe(0);
    expect(JSON.parse(rejected.out)).toMatchObject({
      execution_id: id,
      status: 'canceled',
      error: { code: 'CANCELED', details: { comment: 'no' } },
    });
  });

  it("prints the server's refusal on one line and exits 2: not an approver, decided, unknown", async () => {
    const id = await waitingPayout(10);
    const forbidden = await run('execution', 'approve', id, ...as('clerk'));
    expect(forbidden.code).toBe(2);
    expect(forbidden.out).toBe('');
    expect(forbidden.err).toBe(
      `error: deciding execution ${id} needs one of the approver roles lead [FORBIDDEN]\n`,
    );
    expect((await run('execution', 'reject', id, ...as('lead'))).code).toBe(0);
    const again = await run('execution', 'approve', id, ...as('lead'));
    expect(again.code).toBe(2);
    expect(again.err).toMatch(
      /^error: execution \S+ does not wait for approval: .*\[CONFLICT\]\n$/,
    );
    const unknown = await run('execution', 'reject', 'nope', ...as('lead'));
    expect(unknown).toMatchObject({
      code: 2,
      err: 'error: no execution nope [NOT_FOUND]\n',
    });
  });
});

describe('the approvals quickstart of docs/quickstarts.md', () => {
  it('runs examples/approval-payout.yaml with --cloud --async, lists it and approves it', async () => {
    const started = await run(
      'workflow',
      'run',
      EXAMPLE,
      '--cloud',
      '--async',
      ...as('clerk'),
      '-i',
      'supplier=acme-gmbh',
      '-i',
      'amount=120',
    );
    expect(started.code).toBe(0);
    const record = JSON.parse(started.out) as { execution_id: string; status: string };
    expect(record.status).toBe('waiting');
    expect((await run('approvals', 'list', ...as('lead'))).out).toContain(record.execution_id);
    const approved = await run(
      'execution',
      'approve',
      record.execution_id,
      '--comment',
      'invoice checked',
      '--wait',
      ...as('lead'),
    );
    expect(approved.code).toBe(0);
    expect(approved.out).toBe(
      `execution ${record.execution_id} completed\noutputs: {"reference":"PAY-ACME-GMBH-120"}\n`,
    );
  });
});
