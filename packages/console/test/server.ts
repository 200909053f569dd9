import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createConnectorService, type ConnectorService } from '@weft/sdk/service';
import { createLocalKey, startServer, type RunningServer, type ServerOptions } from '@weft/server';

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

/** A workflow whose first step runs until the test releases its gate (input `gate`). */
export const LIVE = `workflows:
  - name: live
    inputs:
      gate: { type: string, required: true }
    steps:
      - { name: hold, plugin: gate, action: wait, input: { gate: '{{ inputs.gate }}' } }
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
 * `wait` action runs until {@link ConsoleServer.release} opens its gate, whose `boom` action
 * fails and whose `echo` action answers its input as `echoed`, and keys:
 * `clerk` (role finance), `lead` (role lead, an approver), `admin`.
 */
export interface ConsoleServer {
  server: RunningServer;
  url: string;
  keys: { clerk: string; lead: string; admin: string };
  /** Lets the `gate.wait` calls of gate `name` that run (or come) finish. */
  release(name: string): void;
  /** Starts `workflow` as the clerk: the execution id. */
  start(workflow: string, inputs?: Record<string, unknown>): Promise<string>;
  /** Resolves once the execution is in `status`. */
  waitFor(id: string, status: string): Promise<void>;
  close(): Promise<void>;
}

/** `options`: server options beyond the defaults (identity, secrets). */
export async function startConsoleServer(options: ServerOptions = {}): Promise<ConsoleServer> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-console-'));
  const dataDir = join(dir, 'data');
  const server = await startServer(
    { port: 0, dataDir, logLevel: 'silent', ...options },
    { logger: false },
  );
  const gates = new Map<string, { opened: Promise<void>; open(): void }>();
  const gate = (name: string) => {
    let entry = gates.get(name);
    if (!entry) {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      entry = { opened, open };
      gates.set(name, entry);
    }
    return entry;
  };
  let connector: ConnectorService | undefined;
  try {
    connector = await createConnectorService({
      connector: {
        connector: { kind: 'function', name: 'gate', namespace: 't', version: '1.0.0' },
        actions: [{ name: 'wait' }, { name: 'boom' }, { name: 'echo' }],
      },
      handlers: {
        wait: async (input: { gate?: string }) => {
          await gate(input.gate ?? '').opened;
          return { released: true };
        },
        echo: (input: Record<string, unknown>) => ({ echoed: input }),
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
    release: (name) => gate(name).open(),
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
      for (const { open } of gates.values()) open();
      await connector?.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
