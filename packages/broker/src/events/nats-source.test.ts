import { randomBytes } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { NatsEventSource } from './nats-source.js';

const url = process.env['WEFT_TEST_NATS_URL'];

describe.skipIf(!url)('NATS event source (set WEFT_TEST_NATS_URL to run)', () => {
  it('delivers each message on its subject once across two replicas, JSON decoded or as text', async () => {
    const subject = `weft.test.${randomBytes(4).toString('hex')}.orders`;
    const sources = [
      new NatsEventSource({ servers: url! }),
      new NatsEventSource({ servers: url! }),
    ];
    const received: unknown[][] = [[], []];
    for (const [i, source] of sources.entries()) {
      await source.subscribe(subject, async (event) => void received[i]!.push(event));
    }
    const publisher = await connect({ servers: url! });
    for (let i = 0; i < 20; i++) publisher.publish(subject, JSON.stringify({ i }));
    publisher.publish(subject, 'not json');
    await publisher.flush();
    const deadline = Date.now() + 5000;
    const total = () => received[0]!.length + received[1]!.length;
    while (total() < 21 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100));
    const events = received.flat();
    expect(events.filter((e) => typeof e === 'string')).toEqual(['not json']);
    expect(
      events
        .filter((e) => typeof e !== 'string')
        .map((e) => (e as { i: number }).i)
        .sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 20 }, (_, i) => i));
    await publisher.close();
    for (const source of sources) await source.close();
  });
});
