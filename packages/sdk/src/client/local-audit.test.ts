import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { AuditEntry, localPrincipal, type Principal } from '@weft/core';
import type { WorkflowDefinition } from '@weft/engine';
import type { LocalAuditEntry } from './local-audit.js';
import { Weft } from './weft.js';

const FLOWS = [
  {
    name: 'payout',
    version: '1.0.0',
    inputs: {},
    authorization: { enabled: true, roles: ['finance'], permissions: ['payments:write'] },
    steps: [{ name: 'pay', type: 'action', plugin: 'bank', action: 'pay', input: {} }],
  },
  {
    name: 'open',
    version: '1.0.0',
    inputs: {},
    steps: [
      {
        name: 'risky',
        type: 'action',
        plugin: 'bank',
        action: 'pay',
        input: {},
        authorization: { permissions: ['bank:use'] },
      },
    ],
  },
] as unknown as WorkflowDefinition[];

/** A client whose log lines are kept, as parsed JSON, and whose `onAudit` entries are kept. */
function client(identity?: Principal) {
  const lines: Array<Record<string, unknown>> = [];
  const entries: LocalAuditEntry[] = [];
  const paid: unknown[] = [];
  const logDestination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const weft = new Weft({
    inheritEnvironment: false,
    logDestination,
    onAudit: (entry) => void entries.push(entry),
    ...(identity ? { identity } : {}),
  });
  weft.registerHandler('bank.pay', (input) => paid.push(input) && { paid: true });
  weft.addWorkflows(FLOWS);
  const denied = () => lines.filter((line) => line['event'] === 'authorization.denied');
  return { weft, lines, entries, paid, denied };
}

/** The fields of the server's entry, but for the chain fields a local run has not. */
const LOCAL_FIELDS = Object.keys(AuditEntry.properties)
  .filter((key) => !['seq', 'prev_hash', 'hash'].includes(key))
  .sort();

describe('audit of local authorization refusals', () => {
  it('gives onAudit the server-shaped entry of a refused start and logs it once', async () => {
    const ada = localPrincipal({ subject: 'ada', roles: ['ops'], owner: 'acme' });
    const { weft, entries, paid, denied } = client(ada);
    await expect(weft.execute('payout')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(paid).toEqual([]);
    expect(entries).toHaveLength(1);
    const entry = entries[0]!;
    expect(entry).toMatchObject({
      subject: 'ada',
      credential: 'local',
      action: 'execution.start',
      workflow: 'payout',
      execution_id: null,
      step: null,
      decision: 'deny',
      required: { roles: ['finance'], permissions: ['payments:write'] },
      missing: { roles: ['finance'], permissions: ['payments:write'] },
      owner: 'acme',
    });
    expect(entry).not.toHaveProperty('hash');
    expect(Object.keys(entry).sort()).toEqual(LOCAL_FIELDS);
    expect(entry.at).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect(denied()).toHaveLength(1);
    expect(denied()[0]).toMatchObject({ level: 40, audit: entry });
    await weft.close();
  });

  it('audits a refused start without identity, as subject local', async () => {
    const { weft, entries, denied } = client();
    await expect(weft.execute('payout')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(entries).toMatchObject([{ subject: 'local', credential: 'local', owner: null }]);
    expect(entries[0]!.reason).toContain('no identity');
    expect(denied()).toHaveLength(1);
    await weft.close();
  });

  it('audits a step refused for its permissions, with the run and the step', async () => {
    const { weft, entries, paid, denied } = client(localPrincipal({ subject: 'bo' }));
    const result = await weft.execute('open');
    expect(result.status).toBe('failed');
    expect(paid).toEqual([]);
    expect(entries).toMatchObject([
      {
        subject: 'bo',
        action: 'step.run',
        workflow: 'open',
        execution_id: result.execution_id,
        step: 'risky',
        decision: 'deny',
        required: { roles: [], permissions: ['bank:use'] },
        missing: { roles: [], permissions: ['bank:use'] },
      },
    ]);
    expect(denied()).toHaveLength(1);
    await weft.close();
  });

  it('writes nothing for an allowed run, and a failing hook does not change the refusal', async () => {
    const finance = localPrincipal({ roles: ['finance'], permissions: ['payments:write'] });
    const allowed = client(finance);
    expect((await allowed.weft.execute('payout')).status).toBe('completed');
    expect(allowed.entries).toEqual([]);
    expect(allowed.denied()).toEqual([]);
    const lines: string[] = [];
    const weft = new Weft({
      inheritEnvironment: false,
      logDestination: new Writable({
        write: (chunk: Buffer, _e, done) => void (lines.push(chunk.toString()), done()),
      }),
      onAudit: () => Promise.reject(new Error('audit sink down')),
    });
    weft.addWorkflows(FLOWS);
    await expect(weft.execute('payout')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(lines.join('')).toContain('onAudit failed');
    await Promise.all([allowed.weft.close(), weft.close()]);
  });

  it('audits a refusal of checkAuthorization only when asked to (weft workflow run does)', async () => {
    const { weft, entries, denied } = client(localPrincipal({ subject: 'cy' }));
    expect(() => weft.checkAuthorization('payout')).toThrow(/not authorized/);
    expect(entries).toEqual([]);
    expect(() => weft.checkAuthorization('payout', { audit: true })).toThrow(/not authorized/);
    await Promise.resolve();
    expect(entries).toMatchObject([{ subject: 'cy', action: 'execution.start', decision: 'deny' }]);
    expect(denied()).toHaveLength(1);
    await weft.close();
  });
});
