import { randomBytes } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { RecordingStarter, workflowWith } from '../test-support.js';
import { EventRouter } from './event-router.js';
import { NatsEventSource } from './nats-source.js';

const url = process.env['WEFT_TEST_NATS_URL'];

describe.skipIf(!url)('NATS event source (set WEFT_TEST_NATS_URL to run)', () => {
  it('starts the workflow for each filtered message on its subject, once across two replicas', async () => {
    const subject = `weft.test.${randomBytes(4).toString('hex')}.orders`;
    const starters = [new RecordingStarter(), new RecordingStarter()];
    const routers = starters.map(
      (s) => new EventRouter({ start: s.start, sources: [new NatsEventSource({ servers: url! })] }),
    );
    for (const router of routers) {
      await router.register(workflowWith('nats-orders', []), [
        { type: 'event', source: 'nats', topic: subject, filter: { kind: 'new' } },
      ]);
    }
    const publisher = await connect({ servers: url! });
    for (let i = 0; i < 20; i++)
      publisher.publish(subject, JSON.stringify({ kind: i % 2 ? 'old' : 'new', i }));
    publisher.publish(subject, 'not json');
    await publisher.flush();
    const deadline = Date.now() + 5000;
    const total = () => starters.reduce((n, s) => n + s.requests.length, 0);
    while (total() < 10 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100));
    const events = starters
      .flatMap((s) => s.requests.map((r) => (r.trigger.event as { i: number }).i))
      .sort((a, b) => a - b);
    expect(events).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16, 18]);
    await publisher.close();
    for (const router of routers) await router.close();
  });
});
