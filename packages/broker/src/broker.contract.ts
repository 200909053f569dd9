/**
 * The contract every `Broker` implementation passes (docs/design.md#ports): the same tests on the
 * in-memory broker, on NATS JetStream and on Kafka. Each test uses its own subjects.
 */
import { DEAD_LETTER_HEADERS, ValidationError, type Broker, type BrokerMessage } from '@weft/core';
import { afterAll, describe, expect, it } from 'vitest';
import type { TestBroker } from './test-brokers.js';

let counter = 0;
/** A subject no other test (or run) uses. */
export function uniqueSubject(name: string): string {
  counter++;
  return `t${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}.${name}${counter}`;
}

/** Resolves once `check` holds, polling; fails after `timeoutMs`. */
export async function waitFor(check: () => boolean, timeoutMs = 10_000, what = 'condition') {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Registers the contract suite for one implementation. */
export function describeBrokerContract(name: string, open: () => Promise<TestBroker>): void {
  describe(`Broker contract: ${name}`, () => {
    let fixture: TestBroker | undefined;
    const clients: Broker[] = [];
    const client = async (): Promise<Broker> => {
      fixture ??= await open();
      const broker = await fixture.connect();
      clients.push(broker);
      return broker;
    };
    const ackTimeoutMs = () => fixture!.ackTimeoutMs;

    afterAll(async () => {
      for (const broker of clients) await broker.close().catch(() => undefined);
      await fixture?.dispose();
    });

    it('delivers a published message with its headers and key to the group', async () => {
      const broker = await client();
      const subject = uniqueSubject('deliver');
      await broker.publish(subject, 'hello', { headers: { 'x-a': '1' }, key: 'k1' });
      const got: BrokerMessage[] = [];
      const sub = await broker.consume(subject, { group: 'g' }, (m) => void got.push(m));
      await waitFor(() => got.length === 1, 10_000, 'delivery');
      expect(got[0]!.text()).toBe('hello');
      expect(got[0]!.subject).toBe(subject);
      expect(got[0]!.headers['x-a']).toBe('1');
      expect(got[0]!.key).toBe('k1');
      expect(got[0]!.deliveryCount).toBe(1);
      await sub.stop();
    });

    it('gives every group each message and shares one group’s messages among its members', async () => {
      const [a, b] = [await client(), await client()];
      const subject = uniqueSubject('groups');
      const seen = { a: [] as string[], b: [] as string[], other: [] as string[] };
      const slow = async (list: string[], m: BrokerMessage) => {
        list.push(m.text());
        await sleep(5);
      };
      const subs = [
        await a.consume(subject, { group: 'shared', concurrency: 2 }, (m) => slow(seen.a, m)),
        await b.consume(subject, { group: 'shared', concurrency: 2 }, (m) => slow(seen.b, m)),
        await a.consume(subject, { group: 'other' }, (m) => void seen.other.push(m.text())),
      ];
      const count = 40;
      await Promise.all(
        Array.from({ length: count }, (_, i) => a.publish(subject, `m${i}`, { key: `k${i}` })),
      );
      await waitFor(() => seen.a.length + seen.b.length === count && seen.other.length === count);
      await sleep(ackTimeoutMs() + 200);
      expect(new Set([...seen.a, ...seen.b]).size).toBe(count);
      expect(seen.a.length + seen.b.length).toBe(count);
      expect(seen.a.length).toBeGreaterThan(0);
      expect(seen.b.length).toBeGreaterThan(0);
      expect(new Set(seen.other).size).toBe(count);
      for (const sub of subs) await sub.stop();
    });

    it('does not deliver an acknowledged message again', async () => {
      const broker = await client();
      const subject = uniqueSubject('ack');
      let deliveries = 0;
      const sub = await broker.consume(
        subject,
        { group: 'g', ackTimeoutMs: ackTimeoutMs() },
        async (m) => {
          deliveries++;
          await m.ack();
        },
      );
      await broker.publish(subject, 'once');
      await waitFor(() => deliveries === 1);
      await sleep(ackTimeoutMs() * 2 + 200);
      expect(deliveries).toBe(1);
      expect(await broker.pending(subject, 'g')).toBe(0);
      await sub.stop();
    });

    it('redelivers a nacked message and one whose handler threw, counting deliveries', async () => {
      const broker = await client();
      const subject = uniqueSubject('nack');
      const counts: number[] = [];
      const sub = await broker.consume(subject, { group: 'g', retryDelayMs: 50 }, async (m) => {
        counts.push(m.deliveryCount);
        if (m.deliveryCount === 1) return m.nack(10);
        if (m.deliveryCount === 2) throw new Error('flaky');
      });
      await broker.publish(subject, 'again');
      await waitFor(() => counts.length === 3);
      expect(counts).toEqual([1, 2, 3]);
      await sub.stop();
    });

    it('dead-letters a message that keeps failing and goes on serving', async () => {
      const broker = await client();
      const subject = uniqueSubject('poison');
      const dead: BrokerMessage[] = [];
      const served: string[] = [];
      const errors: unknown[] = [];
      const deadSub = await broker.consume(`${subject}.dead-letter`, { group: 'dlq' }, (m) => {
        dead.push(m);
      });
      const sub = await broker.consume(
        subject,
        { group: 'g', maxDeliveries: 3, retryDelayMs: 10, onError: (e) => errors.push(e) },
        (m) => {
          if (m.text() === 'poison') throw new Error('cannot handle poison');
          served.push(m.text());
        },
      );
      await broker.publish(subject, 'poison', { headers: { 'x-id': 'p' } });
      await broker.publish(subject, 'fine-1');
      await waitFor(() => dead.length === 1, 10_000, 'dead letter');
      await broker.publish(subject, 'fine-2');
      await waitFor(() => served.length === 2);
      expect(served.sort()).toEqual(['fine-1', 'fine-2']);
      const letter = dead[0]!;
      expect(letter.text()).toBe('poison');
      expect(letter.headers['x-id']).toBe('p');
      expect(letter.headers[DEAD_LETTER_HEADERS.subject]).toBe(subject);
      expect(letter.headers[DEAD_LETTER_HEADERS.group]).toBe('g');
      expect(letter.headers[DEAD_LETTER_HEADERS.deliveries]).toBe('3');
      expect(letter.headers[DEAD_LETTER_HEADERS.reason]).toContain('cannot handle poison');
      expect(errors.length).toBe(3);
      await sub.stop();
      await deadSub.stop();
    });

    it('dead-letters at once when the handler says so', async () => {
      const broker = await client();
      const subject = uniqueSubject('reject');
      const dead: string[] = [];
      const deadSub = await broker.consume(`${subject}.dead-letter`, { group: 'dlq' }, (m) => {
        dead.push(m.headers[DEAD_LETTER_HEADERS.reason] ?? '');
      });
      let deliveries = 0;
      const sub = await broker.consume(subject, { group: 'g' }, async (m) => {
        deliveries++;
        await m.deadLetter('unparsable');
      });
      await broker.publish(subject, '{not json');
      await waitFor(() => dead.length === 1);
      expect(dead).toEqual(['unparsable']);
      expect(deliveries).toBe(1);
      await sub.stop();
      await deadSub.stop();
    });

    it('redelivers to another member what a crashed member took and never acknowledged', async () => {
      const [doomed, survivor] = [await client(), await client()];
      const subject = uniqueSubject('crash');
      let taken = false;
      await doomed.consume(subject, { group: 'g', ackTimeoutMs: ackTimeoutMs() }, async () => {
        taken = true;
        await new Promise(() => undefined); // hangs: the process "dies" holding the message
      });
      await doomed.publish(subject, 'work');
      await waitFor(() => taken, 10_000, 'first delivery');
      await doomed.close();
      const got: BrokerMessage[] = [];
      const sub = await survivor.consume(
        subject,
        { group: 'g', ackTimeoutMs: ackTimeoutMs() },
        (m) => void got.push(m),
      );
      await waitFor(() => got.length === 1, ackTimeoutMs() * 3 + 15_000, 'redelivery');
      expect(got[0]!.text()).toBe('work');
      if (fixture!.countsCrashRedeliveries) expect(got[0]!.deliveryCount).toBe(2);
      await sub.stop();
    });

    it('keeps a message whose handler is still running past the ack timeout', async () => {
      const broker = await client();
      const subject = uniqueSubject('long');
      let deliveries = 0;
      const sub = await broker.consume(
        subject,
        { group: 'g', ackTimeoutMs: ackTimeoutMs() },
        async () => {
          deliveries++;
          await sleep(ackTimeoutMs() * 2.5);
        },
      );
      await broker.publish(subject, 'long');
      await waitFor(() => deliveries === 1);
      await sub.stop();
      expect(deliveries).toBe(1);
    });

    it('waits for running handlers when a subscription stops', async () => {
      const broker = await client();
      const subject = uniqueSubject('drain');
      let finished = false;
      let started = false;
      const sub = await broker.consume(subject, { group: 'g' }, async () => {
        started = true;
        await sleep(200);
        finished = true;
      });
      await broker.publish(subject, 'x');
      await waitFor(() => started);
      await sub.stop();
      expect(finished).toBe(true);
    });

    it('runs at most `concurrency` handlers at once', async () => {
      const broker = await client();
      const subject = uniqueSubject('limit');
      let running = 0;
      let peak = 0;
      let done = 0;
      const sub = await broker.consume(subject, { group: 'g', concurrency: 3 }, async () => {
        peak = Math.max(peak, ++running);
        await sleep(20);
        running--;
        done++;
      });
      await Promise.all(Array.from({ length: 12 }, (_, i) => broker.publish(subject, `${i}`)));
      await waitFor(() => done === 12);
      expect(peak).toBeLessThanOrEqual(3);
      expect(peak).toBeGreaterThan(1);
      await sub.stop();
    });

    it('starts a new group at the end when asked for `latest`', async () => {
      const broker = await client();
      const subject = uniqueSubject('latest');
      await broker.publish(subject, 'old');
      const got: string[] = [];
      const sub = await broker.consume(subject, { group: 'late', startFrom: 'latest' }, (m) => {
        got.push(m.text());
      });
      await sleep(300);
      await broker.publish(subject, 'new');
      await waitFor(() => got.length >= 1);
      await sleep(200);
      expect(got).toEqual(['new']);
      await sub.stop();
    });

    it('counts the messages a group has not acknowledged', async () => {
      const broker = await client();
      const subject = uniqueSubject('depth');
      await Promise.all([1, 2, 3].map((i) => broker.publish(subject, `${i}`)));
      expect(await broker.pending(subject, 'nobody-yet')).toBe(3);
    });

    it('rejects bad subjects and options with errors naming the field', async () => {
      const broker = await client();
      const noop = () => undefined;
      const cases: [() => Promise<unknown>, string][] = [
        [() => broker.publish('bad subject', 'x'), 'subject'],
        [() => broker.publish('a..b', 'x'), 'subject'],
        [() => broker.consume('a.*', { group: 'g' }, noop), 'subject'],
        [() => broker.consume('a.b', { group: 'has space' }, noop), 'group'],
        [() => broker.consume('a.b', { group: 'g', maxDeliveries: 0 }, noop), 'maxDeliveries'],
        [() => broker.consume('a.b', { group: 'g', ackTimeoutMs: 1.5 }, noop), 'ackTimeoutMs'],
        [() => broker.consume('a.b', { group: 'g', concurrency: -1 }, noop), 'concurrency'],
        [
          () => broker.consume('a.b', { group: 'g', deadLetterSubject: 'a.b' }, noop),
          'deadLetterSubject',
        ],
      ];
      for (const [call, field] of cases) {
        const error = await call().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error, field).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).details.field).toBe(field);
      }
    });
  });
}
