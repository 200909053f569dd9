import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryBroker } from '@weft/broker';
import { TaskDispatcher } from '@weft/broker/tasks';
import type { Subscription } from '@weft/core';
import { KeepingInvoker } from '../test-support/keeping-invoker.js';
import { ConnectorHost } from './host.js';
import { serveTasks } from './tasks.js';

let broker: MemoryBroker;
let invoker: KeepingInvoker;
let worker: Subscription;
let dispatcher: TaskDispatcher;

beforeEach(async () => {
  broker = new MemoryBroker();
  // A function connector cannot enforce these limits: best effort lets the call through, so that
  // the test sees what reached the invoker (strict mode refuses it: sandbox/kind-limits.test.ts).
  invoker = new KeepingInvoker({ sandbox: { mode: 'best-effort' } });
  invoker.registerConnector({
    connector: { kind: 'function', name: 'text', namespace: 'demo', version: '1.0.0' },
    actions: [{ name: 'echo' }],
  });
  invoker.registerHandler('text.echo', (input: Record<string, unknown>) => input);
  worker = await serveTasks(
    new ConnectorHost({ invoker }),
    broker,
    'text',
    pino({ level: 'silent' }),
  );
  dispatcher = await TaskDispatcher.start({ broker, group: 'runtime-test' });
});
afterEach(async () => {
  await dispatcher.stop();
  await worker.stop();
  await broker.close();
});

const task = (n: number, runtime?: object) => ({
  workflowId: 'exec-1',
  plugin: 'text',
  action: 'echo',
  step: `s${n}`,
  input: { n },
  ...(runtime ? { runtime } : {}),
});

describe("a broker task's runtime (header weft-runtime)", () => {
  it('reaches the invoker of the connector service with the call', async () => {
    const runtime = { resources: { memory: '64MB' }, limits: { maxFileDescriptors: 64 } };
    const result = await dispatcher.dispatch(task(1, runtime), { timeoutMs: 10_000 });
    expect(result).toMatchObject({ status: 'success', output: { n: 1 } });
    expect(invoker.calls[0]).toMatchObject({ action: 'echo', runtime });
    await dispatcher.dispatch(task(2), { timeoutMs: 10_000 });
    expect(invoker.calls[1]).not.toHaveProperty('runtime');
  });

  it('is checked as in a request: a runtime over the limits is a VALIDATION result', async () => {
    const result = await dispatcher.dispatch(task(3, { resources: { cpu: '8' } }), {
      timeoutMs: 10_000,
    });
    expect(result).toMatchObject({
      status: 'error',
      error: {
        code: 'VALIDATION',
        details: { field: 'runtime.resources.cpu', constraint: 'limit' },
      },
    });
    expect(invoker.calls).toHaveLength(0);
  });
});
