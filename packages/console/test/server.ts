import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createConnectorService, type ConnectorService } from '@weft/sdk';
import { createLocalKey, startServer, type RunningServer } from '@weft/server';

/** A workflow that waits for an approval of `lead` before it pays. */
export const PAYOUT = `workflows:
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

/** A workflow whose first step runs until the test releases it. */
export const LIVE = `workflows:
  - name: live
    steps:
      - { name: hold, plugin: gate, action: wait, input: {} }
      - { name: after, type: transform, input: { ok: true } }
    outputs:
      ok: { value: '{{ steps.after.output.ok }}' }
`;

/** A workflow whose step fails. */
export const FAILING = `workflows:
  - name: failing
    steps:
      - { name: explode, plugin: gate, action: boom, input: {} }
`;

/**
 * A real `weft server` on SQLite in a temporary folder, with a connector service (`gate`) whose
 * `wait` action runs until {@link ConsoleServer.release} and whose `boom` action fails, and keys:
 * `clerk` (role finance), `lead` (role lead, an approver), `admin`.
 */
export interface ConsoleServer {
  server: RunningServer;
  url: string;
  keys: { clerk: string; lead: string; admin: string };
  /** Lets every `gate.wait` call that runs (or comes) finish. */
  release(): void;
  /** Starts `workflow` as the clerk: the execution id. */
  start(workflow: string, inputs?: Record<string, unknown>): Promise<string>;
  /** Resolves once the execution is in `status`. */
  waitFor(id: string, status: string): Promise<void>;
  close(): Promise<void>;
}

export async function startConsoleServer(): Promise<ConsoleServer> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-console-'));
  const dataDir = join(dir, 'data');
  const server = await startServer({ port: 0, dataDir, logLevel: 'silent' }, { logger: false });
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let connector: ConnectorService | undefined;
  try {
    connector = await createConnectorService({
      connector: {
        connector: { kind: 'function', name: 'gate', namespace: 't', version: '1.0.0' },
        actions: [{ name: 'wait' }, { name: 'boom' }],
      },
      handlers: {
        wait: async () => {
          await gate;
          return { released: true };
        },
        boom: () => {
          throw new Error('the boom action failed on purpose');
        },
      },
      routerUrl: server.url,
      instanceId: 'gate-1',
      handleSignals: false,
      logger: pino({ level: 'silent' }),
    });
  } catch (error) {
    await server.close();
    throw error;
  }
  const key = async (options: Parameters<typeof createLocalKey>[1]) =>
    (await createLocalKey({ dataDir }, options)).key;
  const keys = {
    clerk: await key({ name: 'clerk', owner: 'acme', roles: ['finance'] }),
    lead: await key({ name: 'lead', owner: 'acme', roles: ['lead'] }),
    admin: await key({ name: 'ops', owner: 'acme', admin: true }),
  };
  const headers = { authorization: `Bearer ${keys.clerk}`, 'content-type': 'application/json' };
  return {
    server,
    url: server.url,
    keys,
    release: open,
    async start(workflow, inputs = {}) {
      const answer = await fetch(`${server.url}/workflows/executions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ workflow, inputs }),
      });
      if (answer.status >= 300) throw new Error(`start: ${answer.status} ${await answer.text()}`);
      return ((await answer.json()) as { execution_id: string }).execution_id;
    },
    async waitFor(id, status) {
      for (let i = 0; i < 500; i++) {
        const answer = await fetch(`${server.url}/workflows/executions/${id}`, { headers });
        if (((await answer.json()) as { status: string }).status === status) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`execution ${id} never reached ${status}`);
    },
    async close() {
      open();
      await connector?.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
