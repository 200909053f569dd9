/**
 * Throughput cases of the broker benchmark: N no-op tasks (docs/protocol.md#broker-tasks) published, consumed by a task
 * worker that publishes each result, and every result received — next to BullMQ doing N no-op
 * jobs on the local Redis.
 */
import { Queue, Worker } from 'bullmq';
import { consumeTasks, dispatchTask, RESULTS_SUBJECT } from '@weft/broker';
import type { Broker, Subscription } from '@weft/core';

/**
 * Tasks in flight from the producer at a time (BullMQ's side adds jobs 1,000 per `addBulk`). All
 * 50,000 at once spent a third of the run in garbage collection of the waiting publishes.
 */
const PUBLISH_WINDOW = Number(process.env['WEFT_BENCH_PUBLISH_WINDOW'] ?? 1000);

/** Measured throughput of one case. */
export interface ThroughputResult {
  name: string;
  jobs: number;
  seconds: number;
  jobsPerSec: number;
}

/** Clients of one broker backend: separate connections, as separate processes would have. */
export interface BrokerClients {
  producer: Broker;
  worker: Broker;
  listener: Broker;
}

/**
 * Publishes `jobs` tasks ({@link PUBLISH_WINDOW} in flight at a time), serves them with a no-op
 * handler, and resolves when every result has arrived.
 */
export async function brokerThroughput(
  name: string,
  clients: BrokerClients,
  jobs: number,
  plugin: string,
): Promise<ThroughputResult> {
  let received = 0;
  let allReceived: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (allReceived = resolve));
  const subs: Subscription[] = [
    await consumeTasks({
      broker: clients.worker,
      pluginSlug: plugin,
      handle: () => null,
      concurrency: 1000,
    }),
    await clients.listener.consume(
      RESULTS_SUBJECT,
      { group: `bench-${plugin}`, startFrom: 'latest', concurrency: 1000 },
      () => {
        if (++received === jobs) allReceived();
      },
    ),
  ];
  const start = process.hrtime.bigint();
  // PUBLISH_WINDOW producers, each publishing its next task once the last one is acknowledged.
  let next = 0;
  const producer = async () => {
    for (let i = next++; i < jobs; i = next++) {
      await dispatchTask(clients.producer, {
        workflowId: `exec-${i}`,
        plugin,
        action: 'noop',
        input: { i },
        step: 'noop',
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(PUBLISH_WINDOW, jobs) }, producer));
  await done;
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  for (const sub of subs) await sub.stop();
  return { name, jobs, seconds, jobsPerSec: jobs / seconds };
}

/** BullMQ on Redis: `addBulk` in chunks of 1,000, one worker (concurrency 1,000) completing no-ops. */
export async function bullmqThroughput(jobs: number): Promise<ThroughputResult> {
  const connection = { host: '127.0.0.1', port: 6379, maxRetriesPerRequest: null };
  const name = `weft-bench-${process.pid}-${Date.now()}`;
  const queue = new Queue(name, { connection });
  let completed = 0;
  let allDone: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (allDone = resolve));
  const worker = new Worker(name, async () => null, { connection, concurrency: 1000 });
  worker.on('completed', () => {
    if (++completed === jobs) allDone();
  });
  await worker.waitUntilReady();
  const start = process.hrtime.bigint();
  const adds: Promise<unknown>[] = [];
  for (let i = 0; i < jobs; i += 1000) {
    const chunk = Array.from({ length: Math.min(1000, jobs - i) }, (_, j) => ({
      name: 'noop',
      data: { workflow_id: `exec-${i + j}`, plugin: 'bench', action: 'noop', input: { i: i + j } },
      opts: { removeOnComplete: true, removeOnFail: true },
    }));
    adds.push(queue.addBulk(chunk));
  }
  await Promise.all(adds);
  await done;
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  return { name: 'BullMQ on Redis (no-op jobs)', jobs, seconds, jobsPerSec: jobs / seconds };
}
