import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  NatsBroker,
  parseTaskResultMessage,
  RESULTS_SUBJECT,
  TaskDispatcher,
  testNamespace,
  type TaskResultMessage,
} from '@weft/broker';
import type { Broker } from '@weft/core';
import { NATS_URL, startInline, stop, waitUntil, type Child } from './support.js';

const SKIP = NATS_URL ? undefined : 'needs WEFT_TEST_NATS_URL (.ci/run sets it)';

/**
 * A plugin service `count` serving by broker only. Its action `step` records its side effect in
 * the ledger file `LEDGER` unless the ledger already holds the call's idempotency key (the
 * service's own duplicate check, which survives its crash), and logs every call it gets. With
 * `HANG` set it hangs after applying the side effect, before answering — so before the ack.
 */
const SERVICE = `
import { appendFileSync, readFileSync } from 'node:fs';
import { pino } from 'pino';
import { connectBroker } from '@weft/broker';
import { createConnectorService } from '@weft/sdk/service';

const ledger = process.env.LEDGER;
const broker = await connectBroker(process.env.BROKER);
await createConnectorService({
  connector: {
    connector: { kind: 'function', name: 'count', namespace: 't', version: '1.0.0' },
    actions: [{ name: 'step' }],
  },
  handlers: {
    step: async (input, context) => {
      const key = context.idempotencyKey;
      appendFileSync(ledger, 'call ' + key + ' ' + process.pid + '\\n');
      const lines = readFileSync(ledger, 'utf8').split('\\n');
      if (!lines.some((line) => line.startsWith('applied ' + key + ' '))) {
        appendFileSync(ledger, 'applied ' + key + ' ' + process.pid + '\\n');
      }
      if (process.env.HANG) {
        console.log('applied ' + key);
        await new Promise(() => undefined);
      }
      return { v: input.v + 1 };
    },
  },
  broker,
  taskOptions: { ackTimeoutMs: 1000 },
  handleSignals: false,
  logger: pino({ level: 'silent' }),
});
console.log('listening on broker');
`;

describe.skipIf(SKIP)(
  `a broker-served plugin SIGKILLed after its side effect, before the ack${SKIP ? ` (skipped: ${SKIP})` : ''}`,
  () => {
    const namespace = testNamespace();
    let dir: string | undefined;
    const children: Child[] = [];
    const brokers: NatsBroker[] = [];
    let tasks: TaskDispatcher | undefined;

    afterAll(async () => {
      for (const child of children) await stop(child.child, 'SIGKILL');
      await tasks?.stop();
      if (brokers[0]) await brokers[0].deleteNamespace();
      for (const broker of brokers) await broker.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('redelivers the task; the duplicate is dropped by idempotency key', async () => {
      const connect = async (): Promise<Broker> => {
        const broker = await NatsBroker.connect({ servers: [NATS_URL!], namespace });
        brokers.push(broker);
        return broker;
      };
      dir = mkdtempSync(join(tmpdir(), 'weft-redelivery-'));
      const ledger = join(dir, 'ledger');
      const env = { LEDGER: ledger, BROKER: `${NATS_URL}?namespace=${namespace}` };
      const [runtime, watch] = [await connect(), await connect()];
      // Every result on the results subject, duplicates included.
      const seen: TaskResultMessage[] = [];
      const watcher = await watch.consume(RESULTS_SUBJECT, { group: 'fault-watch' }, (message) => {
        seen.push(parseTaskResultMessage(message.text()));
      });
      const accepted: TaskResultMessage[] = [];
      tasks = await TaskDispatcher.start({
        broker: runtime,
        group: 'fault-runtime',
        onResult: (result) => void accepted.push(result),
      });

      const first = await startInline('service (hangs)', SERVICE, { ...env, HANG: '1' });
      children.push(first);
      const request = { workflowId: 'exec-1', plugin: 'count', action: 'step', step: 's1' };
      const result = tasks.dispatch({ ...request, input: { v: 1 } }, { timeoutMs: 60_000 });
      result.catch(() => undefined); // awaited below; no unhandled rejection if a wait fails first
      await waitUntil(() => first.output().includes('applied exec-1/s1'), 30_000, 'side effect');
      await stop(first.child, 'SIGKILL');

      const second = await startInline('service', SERVICE, env);
      children.push(second);
      expect(await result).toMatchObject({
        status: 'success',
        output: { v: 2 },
        idempotency_key: 'exec-1/s1',
      });
      // A later task's result: by then any second result of exec-1/s1 would have been seen too.
      const later = { ...request, workflowId: 'exec-2', input: { v: 5 } };
      expect(await tasks.dispatch(later, { timeoutMs: 30_000 })).toMatchObject({
        output: { v: 6 },
      });
      await waitUntil(() => seen.some((r) => r.workflow_id === 'exec-2'), 30_000, 'exec-2 result');
      await watcher.stop();

      const lines = readFileSync(ledger, 'utf8').trim().split('\n');
      const calls = lines.filter((line) => line.startsWith('call exec-1/s1 '));
      const applied = lines.filter((line) => line.startsWith('applied exec-1/s1 '));
      const pids = new Set(calls.map((line) => line.split(' ')[2]));
      expect(applied).toEqual([`applied exec-1/s1 ${first.child.pid}`]);
      expect(calls.length).toBeGreaterThanOrEqual(2);
      expect(pids).toEqual(new Set([String(first.child.pid), String(second.child.pid)]));
      // The new process may publish the result more than once (NATS can hand it the redelivered
      // task twice); the dispatcher takes the first and drops the rest.
      const published = seen.filter((r) => r.idempotency_key === 'exec-1/s1').length;
      expect(published).toBeGreaterThanOrEqual(1);
      expect(accepted.filter((r) => r.idempotency_key === 'exec-1/s1')).toHaveLength(1);
      expect(tasks.duplicates).toBe(published - 1);
    }, 60_000);
  },
);
