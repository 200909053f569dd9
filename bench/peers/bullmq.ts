/**
 * BullMQ flows on the local Redis in the peer suite: each run adds a `FlowProducer` chain (task
 * `k` is the only child of task `k + 1`, so the first task is the deepest and runs first), a
 * worker in this process runs each job once its child has completed, reading the child's return
 * value, and the run waits for the root (the last task) to finish. Jobs are durable in Redis
 * (BullMQ's default persistence of the server, whatever it is configured to be).
 */
import { FlowProducer, Queue, QueueEvents, Worker, type FlowJob } from 'bullmq';
import { checkCount, task, type Shape, type TaskOutput } from './tasks.js';
import type { System } from './weft.js';

/** Either a running BullMQ system, or why it cannot run here. */
export type BullStart = { system: System } | { skipped: string };

function chain(queueName: string, shape: Shape): FlowJob {
  let job: FlowJob | undefined;
  for (let k = 0; k < shape.tasks; k++) {
    // Every job but the root (which the run waits on) goes away once done; the queue is
    // obliterated at the end.
    const last = k === shape.tasks - 1;
    job = {
      name: `t${k}`,
      queueName,
      data: { n: shape.n },
      opts: last ? {} : { removeOnComplete: true, removeOnFail: true },
      ...(job ? { children: [job] } : {}),
    };
  }
  return job!;
}

/** Connects to Redis on 127.0.0.1 (port 6379); gives back why not when it does not answer. */
export async function startBullmq(port = 6379): Promise<BullStart> {
  const connection = {
    host: '127.0.0.1',
    port,
    maxRetriesPerRequest: null,
    connectTimeout: 2000,
    retryStrategy: () => null,
  };
  const queueName = `weft-bench-peers-${process.pid}-${Date.now()}`;
  const producer = new FlowProducer({ connection });
  const events = new QueueEvents(queueName, { connection });
  const worker = new Worker<{ n: number }, TaskOutput>(
    queueName,
    async (job) => {
      const children = Object.values(await job.getChildrenValues<TaskOutput>());
      return task(job.data.n, children[0]?.i ?? 0);
    },
    { connection, concurrency: 1 },
  );
  const close = async (obliterate = true) => {
    await worker.close();
    if (obliterate) {
      const queue = new Queue(queueName, { connection });
      await queue.obliterate({ force: true });
      await queue.close();
    }
    await events.close();
    await producer.close();
  };
  // Without Redis the clients keep reporting connection errors: swallow them, the skip says why.
  producer.on('error', () => undefined);
  events.on('error', () => undefined);
  worker.on('error', () => undefined);
  try {
    await Promise.all([worker.waitUntilReady(), events.waitUntilReady()]);
  } catch (error) {
    await close(false).catch(() => undefined);
    return { skipped: `Redis on 127.0.0.1:${port} did not answer (${(error as Error).message})` };
  }
  const name = 'BullMQ flow on Redis (job per task)';
  return {
    system: {
      name,
      async run(shape) {
        const root = await producer.add(chain(queueName, shape));
        const result = (await root.job.waitUntilFinished(events, 60_000)) as TaskOutput;
        checkCount(shape, result.i, name);
      },
      close: () => close(),
    },
  };
}
