import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryBackend, MemoryBroker } from '@weft/broker';
import { createConnectorService, type ConnectorService } from '@weft/sdk/service';
import { startServer, type RunningServer } from '../start.js';
import { createLocalKey } from '../local-keys.js';

const workflow = `workflows:
  - name: chain
    version: 1.0.0
    steps:
      - { name: a, plugin: counter, action: bump, input: { n: 1 } }
      - { name: b, plugin: echo, action: say, input: { n: '{{ steps.a.output.n }}' } }
    outputs: { n: { value: '{{ steps.b.output.n }}' } }
`;

describe('broker dispatch of actions (in-memory broker)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-broker-dispatch-'));
  const backend = new MemoryBackend();
  const serverBroker = new MemoryBroker(backend);
  const serviceBroker = new MemoryBroker(backend);
  const keys: string[] = [];
  const headers: (string | undefined)[] = [];
  let server: RunningServer;
  let counter: ConnectorService;
  let echo: ConnectorService;
  let auth: string;

  beforeAll(async () => {
    server = await startServer(
      { port: 0, dataDir, logLevel: 'error', replicaId: 'replica-a' },
      { broker: serverBroker, logger: false },
    );
    const quiet = pino({ level: 'silent' });
    counter = await createConnectorService({
      connector: {
        connector: { kind: 'function', name: 'counter', namespace: 't', version: '1.0.0' },
        actions: [{ name: 'bump' }],
      },
      handlers: {
        bump: (input: { n: number }, context: { idempotencyKey: string }) => {
          keys.push(context.idempotencyKey);
          return { n: input.n + 1 };
        },
      },
      broker: serviceBroker,
      routerUrl: server.url,
      instanceId: 'counter-1',
      handleSignals: false,
      logger: quiet,
    });
    echo = await createConnectorService({
      connector: {
        connector: { kind: 'function', name: 'echo', namespace: 't', version: '1.0.0' },
        actions: [{ name: 'say' }],
      },
      // The HTTP connector service reads context.idempotencyKey from the Idempotency-Key header.
      handlers: {
        say: (input: object, context: { idempotencyKey: string }) => {
          headers.push(context.idempotencyKey);
          return input;
        },
      },
      routerUrl: server.url,
      instanceId: 'echo-1',
      handleSignals: false,
      logger: quiet,
    });
    auth = `Bearer ${(await createLocalKey({ dataDir }, { name: 't' })).key}`;
  }, 20_000);

  afterAll(async () => {
    await counter?.close();
    await echo?.close();
    await server?.close();
    await serviceBroker.close();
    await serverBroker.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function run(): Promise<{ execution_id: string; status: string; result: unknown }> {
    const response = await fetch(`${server.url}/workflows/executions`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json', prefer: 'wait=10' },
      body: JSON.stringify({ workflow_file: workflow }),
    });
    if (response.status !== 200) throw new Error(await response.text());
    return (await response.json()) as { execution_id: string; status: string; result: unknown };
  }

  it('sends a broker instance its actions as task messages keyed <execution_id>/<step>', async () => {
    const ended = await run();
    expect(ended.status).toBe('completed');
    expect(ended.result).toMatchObject({ outputs: { n: 2 } });
    expect(keys).toEqual([`${ended.execution_id}/a`]);
    expect(counter.registration).toBeDefined();
  });

  it('sends HTTP instances the Idempotency-Key header', async () => {
    const ended = await run();
    expect(headers.at(-1)).toBe(`${ended.execution_id}/b`);
  });

  it('answers a task delivered twice once, by idempotency key', async () => {
    const before = keys.length;
    const first = await counter.host.execute(
      { action: 'counter.bump', input: { n: 5 } },
      undefined,
      'x/a',
    );
    const again = await counter.host.execute(
      { action: 'counter.bump', input: { n: 5 } },
      undefined,
      'x/a',
    );
    expect(again).toEqual(first);
    expect(keys.length - before).toBe(1);
    expect(counter.host.recent.duplicates).toBe(1);
  });

  it('exposes queue depth per topic and executions in flight at GET /metrics', async () => {
    const admin = await createLocalKey({ dataDir }, { name: 'ops', admin: true });
    const response = await fetch(`${server.url}/metrics`, {
      headers: { authorization: `Bearer ${admin.key}` },
    });
    if (response.status !== 200) throw new Error(await response.text());
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(text).toContain('# TYPE weft_queue_depth gauge');
    expect(text).toMatch(
      /^weft_queue_depth\{topic="platform\.workflow\.counter",group="plugin\.counter"\} 0$/m,
    );
    expect(text).toMatch(
      /^weft_queue_depth\{topic="platform\.workflow\.results",group="runtime\.replica-a"\} 0$/m,
    );
    expect(text).toMatch(/^weft_executions_in_flight\{replica="replica-a"\} 0$/m);
  });
});
