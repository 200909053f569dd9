import { randomBytes } from 'node:crypto';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { Kafka, logLevel } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { KafkaEventSource } from './kafka-source.js';
import { SqsEventSource } from './sqs-source.js';

const brokers = process.env['WEFT_TEST_KAFKA_BROKERS'];
const sqsUrl = process.env['WEFT_TEST_SQS_URL'];

async function until(check: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

describe.skipIf(!brokers)(
  'Kafka event source contract (set WEFT_TEST_KAFKA_BROKERS to run)',
  () => {
    it('consumes a topic in a consumer group from the beginning, each message decoded', async () => {
      const topic = `weft-test-${randomBytes(4).toString('hex')}`;
      const kafka = new Kafka({ brokers: brokers!.split(','), logLevel: logLevel.NOTHING });
      const admin = kafka.admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic }], waitForLeaders: true });
      const source = new KafkaEventSource({
        brokers: brokers!.split(','),
        groupId: `g-${topic}`,
        fromBeginning: true,
      });
      const received: unknown[] = [];
      await source.subscribe(topic, async (event) => void received.push(event));
      const producer = kafka.producer();
      await producer.connect();
      await producer.send({
        topic,
        messages: [
          { value: '{"ok":true,"n":1}' },
          { value: '{"ok":false}' },
          { value: '{"ok":true,"n":2}' },
        ],
      });
      await until(() => received.length >= 3);
      expect(received).toEqual([{ ok: true, n: 1 }, { ok: false }, { ok: true, n: 2 }]);
      await producer.disconnect();
      await source.close();
      await admin.deleteTopics({ topics: [topic] });
      await admin.disconnect();
    }, 60_000);
  },
);

describe.skipIf(!sqsUrl)(
  'SQS event source contract (set WEFT_TEST_SQS_URL to an SQS endpoint to run)',
  () => {
    it('long-polls a queue and unwraps an SNS envelope to its message', async () => {
      const client = new SQSClient({ endpoint: sqsUrl!, region: 'us-east-1' });
      const { QueueUrl } = await client.send(
        new CreateQueueCommand({ QueueName: `weft-test-${randomBytes(4).toString('hex')}` }),
      );
      const source = new SqsEventSource({
        client: { endpoint: sqsUrl!, region: 'us-east-1' },
        waitSeconds: 1,
      });
      const received: unknown[] = [];
      await source.subscribe(QueueUrl!, async (event) => void received.push(event));
      await client.send(new SendMessageCommand({ QueueUrl, MessageBody: '{"ok":true,"n":1}' }));
      await client.send(
        new SendMessageCommand({
          QueueUrl,
          MessageBody: JSON.stringify({ Type: 'Notification', Message: '{"ok":true,"n":2}' }),
        }),
      );
      await until(() => received.length >= 2);
      expect(received).toEqual([
        { ok: true, n: 1 },
        { ok: true, n: 2 },
      ]);
      await source.close();
      await client.send(new DeleteQueueCommand({ QueueUrl }));
    }, 60_000);
  },
);
