import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The real weft server over loopback; test-only import.
import { createLocalKey, startServer, type RunningServer } from '@weft/server';
import { Weft } from '../client/weft.js';
import { ApiError } from './api-error.js';
import { WeftClient } from './weft-client.js';

const PAYOUT = `workflows:
  - name: payout
    authorization:
      enabled: true
      roles: [finance]
      approval: { required: true, approvers: [lead], timeout: 600 }
    inputs:
      amount: { type: number, required: true }
    steps:
      - { name: pay, type: transform, input: { paid: '{{ inputs.amount }}' } }
    outputs:
      paid: { value: '{{ steps.pay.output.paid }}' }
`;

const dir = mkdtempSync(join(tmpdir(), 'weft-sdk-approvals-'));
let server: RunningServer;
/** A finance clerk who may start payouts, and a lead who approves them. */
let clerk: WeftClient;
let lead: WeftClient;
let leadKey: string;

beforeAll(async () => {
  const dataDir = join(dir, 'data');
  server = await startServer({ port: 0, dataDir, logLevel: 'silent' }, { logger: false });
  const key = async (name: string, roles: string[]) =>
    (await createLocalKey({ dataDir }, { name, owner: 'acme', roles })).key;
  clerk = new WeftClient({ baseUrl: server.url, apiKey: await key('clerk', ['finance']) });
  leadKey = await key('lead', ['lead']);
  lead = new WeftClient({ baseUrl: server.url, apiKey: leadKey });
}, 30_000);

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function waitingPayout(amount: number): Promise<string> {
  const started = await clerk.startExecution({ workflow: PAYOUT, inputs: { amount } });
  for (let i = 0; i < 200; i++) {
    const record = await clerk.getExecution(started.execution_id);
    if (record.status === 'waiting') return record.execution_id;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`execution ${started.execution_id} does not wait`);
}

describe('approvals through the HTTP clients', () => {
  it('lists a waiting run for its approver only, and approving it lets it complete', async () => {
    const id = await waitingPayout(5);
    const page = await lead.listApprovals({ limit: 10 });
    const listed = page.executions.find((e) => e.execution_id === id);
    expect(listed?.waiting_for).toMatchObject({
      kind: 'approval',
      approvers: ['lead'],
      requested_by: { kind: 'api_key', name: 'clerk' },
      expires_at: expect.any(String),
    });
    expect((await clerk.listApprovals()).executions).toEqual([]);

    const approved = await lead.approveExecution(id, { comment: 'fine' });
    expect(approved.execution_id).toBe(id);
    expect(['pending', 'running', 'completed']).toContain(approved.status);
    const done = await clerk.waitForExecution(id, { intervalMs: 20, timeoutMs: 10_000 });
    expect(done).toMatchObject({ status: 'completed', result: { outputs: { paid: 5 } } });
  });

  it("gives the server's refusals as ApiErrors: not an approver, decided already, unknown", async () => {
    const id = await waitingPayout(6);
    const refused = await clerk.approveExecution(id).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({
      status: 403,
      code: 'FORBIDDEN',
      details: { reason: 'not_approver' },
    });

    const rejected = await lead.rejectExecution(id, { comment: 'not today' });
    expect(rejected).toMatchObject({
      status: 'canceled',
      error: { code: 'CANCELED', details: { comment: 'not today' } },
    });
    await expect(lead.approveExecution(id)).rejects.toMatchObject({
      status: 409,
      code: 'CONFLICT',
    });
    await expect(lead.rejectExecution('no-such-execution')).rejects.toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
    });
  });

  it('refuses an empty id or an oversized comment before any request', async () => {
    await expect(lead.approveExecution('')).rejects.toMatchObject({
      code: 'VALIDATION',
      details: { field: 'executionId' },
    });
    await expect(lead.approveExecution('x', { comment: 'y'.repeat(2001) })).rejects.toMatchObject({
      code: 'VALIDATION',
      details: { field: 'comment' },
    });
  });

  it('does the same from the Node client, with its cloudUrl and apiKey', async () => {
    const id = await waitingPayout(7);
    const weft = new Weft({ cloudUrl: server.url, apiKey: leadKey, logLevel: 'silent' });
    try {
      const page = await weft.listApprovals();
      expect(page.executions.map((e) => e.execution_id)).toContain(id);
      expect(page.next_cursor).toBeNull();
      await weft.approveExecution(id);
      expect((await weft.wait(id, { intervalMs: 20, timeoutMs: 10_000 })).status).toBe('completed');
      const other = await waitingPayout(8);
      expect((await weft.rejectExecution(other)).status).toBe('canceled');
    } finally {
      await weft.close();
    }
  });

  it('pages with limit and cursor, newest first', async () => {
    const ids = [await waitingPayout(1), await waitingPayout(2), await waitingPayout(3)];
    const first = await lead.listApprovals({ limit: 2 });
    expect(first.executions.map((e) => e.execution_id)).toEqual([ids[2], ids[1]]);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await lead.listApprovals({ limit: 2, cursor: first.next_cursor! });
    expect(second.executions.map((e) => e.execution_id)).toEqual([ids[0]]);
    for (const id of ids) await lead.rejectExecution(id);
  });
});
