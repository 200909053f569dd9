import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { openTestBroker, TaskDispatcher, taskSubject, type TestBroker } from '@weft/broker';
import {
  deadLetterSubjectOf,
  DEAD_LETTER_HEADERS,
  type Broker,
  type BrokerMessage,
} from '@weft/core';
import { createConnectorService, type ConnectorService } from '@weft/sdk/service';
import { NATS_URL, SKIP_REASON, waitUntil } from './support.js';

describe.skipIf(SKIP_REASON)(
  `a poison message on a plugin topic (NATS)${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ''}`,
  () => {
    let nats: TestBroker | undefined;
    const brokers: Broker[] = [];
    let service: ConnectorService | undefined;
    let tasks: TaskDispatcher | undefined;

    afterAll(async () => {
      await tasks?.stop();
      await service?.close();
      for (const broker of brokers) await broker.close();
      await nats?.dispose();
    });

    it('goes to the dead-letter subject and the consumer keeps serving', async () => {
      nats = openTestBroker('nats', NATS_URL);
      const [serviceBroker, runtimeBroker] = [await nats.connect(), await nats.connect()];
      brokers.push(serviceBroker, runtimeBroker);
      service = await createConnectorService({
        connector: {
          connector: { kind: 'function', name: 'count', namespace: 't', version: '1.0.0' },
          actions: [{ name: 'step' }],
        },
        handlers: { step: (input: { v: number }) => ({ v: input.v + 1 }) },
        broker: serviceBroker,
        taskOptions: { ackTimeoutMs: nats.ackTimeoutMs },
        handleSignals: false,
        logger: pino({ level: 'silent' }),
      });
      const dead: BrokerMessage[] = [];
      const watcher = await runtimeBroker.consume(
        deadLetterSubjectOf(taskSubject('count')),
        { group: 'fault-watch' },
        (message) => void dead.push(message),
      );
      tasks = await TaskDispatcher.start({ broker: runtimeBroker, group: 'fault-runtime' });

      await runtimeBroker.publish(taskSubject('count'), '{"workflow_id": "poison", "plugin":');
      await runtimeBroker.publish(taskSubject('count'), JSON.stringify({ hello: 'world' }));
      await waitUntil(() => dead.length === 2, 10_000, 'both poison messages to be dead-lettered');
      expect(dead.map((m) => m.text())).toEqual([
        '{"workflow_id": "poison", "plugin":',
        JSON.stringify({ hello: 'world' }),
      ]);
      expect(dead[0]!.headers[DEAD_LETTER_HEADERS.reason]).toMatch(/not JSON/);
      expect(dead[1]!.headers[DEAD_LETTER_HEADERS.reason]).toMatch(/workflow_id/);

      const result = await tasks.dispatch(
        {
          workflowId: 'after-poison',
          plugin: 'count',
          action: 'step',
          input: { v: 1 },
          step: 's1',
        },
        { timeoutMs: 10_000 },
      );
      expect(result).toMatchObject({
        status: 'success',
        output: { v: 2 },
        idempotency_key: 'after-poison/s1',
      });
      await watcher.stop();
    }, 30_000);
  },
);
