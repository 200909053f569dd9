import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectBroker, consumeTasks, TaskDispatcher, type TaskResultMessage } from '@weft/broker';
import type { Broker, Subscription } from '@weft/core';
import { freePort, NATS_URL, stop, waitUntil } from './support.js';

const NATS_SERVER = '/usr/sbin/nats-server';
const SKIP = NATS_URL ? undefined : 'needs WEFT_TEST_NATS_URL (.ci/run sets it)';
const TASKS = 300;

/** Starts a private JetStream server on `port` with its store in `dir`; resolves once it is ready. */
async function startNats(port: number, dir: string): Promise<ChildProcess> {
  const args = ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dir];
  const child = spawn(NATS_SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`nats-server did not start: ${out}`)), 20_000);
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Server is ready')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`nats-server exited (${code ?? signal}): ${out}`));
    });
  });
  return child;
}

describe.skipIf(SKIP)(
  `a private NATS server SIGKILLed and restarted mid-run${SKIP ? ` (skipped: ${SKIP})` : ''}`,
  () => {
    let dir: string | undefined;
    let nats: ChildProcess | undefined;
    const brokers: Broker[] = [];
    let worker: Subscription | undefined;
    let tasks: TaskDispatcher | undefined;

    afterAll(async () => {
      await worker?.stop();
      await tasks?.stop();
      for (const broker of brokers) await broker.close();
      if (nats) await stop(nats, 'SIGKILL');
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it(`completes all ${TASKS} dispatches; nothing acknowledged is lost`, async () => {
      const port = await freePort();
      const store = (dir = mkdtempSync(join(tmpdir(), 'weft-nats-')));
      nats = await startNats(port, store);
      const url = `nats://127.0.0.1:${port}`;
      const [workerBroker, runtimeBroker] = [await connectBroker(url), await connectBroker(url)];
      brokers.push(workerBroker, runtimeBroker);
      const handled = new Map<string, number>();
      worker = await consumeTasks({
        broker: workerBroker,
        pluginSlug: 'count',
        ackTimeoutMs: 2000,
        maxDeliveries: 100,
        handle: async (task, context) => {
          const key = context.idempotencyKey ?? '';
          handled.set(key, (handled.get(key) ?? 0) + 1);
          await new Promise((resolve) => setTimeout(resolve, 5));
          return { v: (task.input as { v: number }).v + 1 };
        },
      });
      tasks = await TaskDispatcher.start({ broker: runtimeBroker, group: 'runtime' });

      const results = new Map<number, TaskResultMessage>();
      const failures: unknown[] = [];
      let next = 0;
      const dispatchAll = async () => {
        for (let i = next++; i < TASKS; i = next++) {
          try {
            const request = {
              workflowId: `exec-${i}`,
              plugin: 'count',
              action: 'step',
              step: 's1',
            };
            results.set(
              i,
              await tasks!.dispatch({ ...request, input: { v: i } }, { timeoutMs: 30_000 }),
            );
          } catch (error) {
            failures.push(error);
          }
        }
      };
      const dispatching = Promise.all(Array.from({ length: 4 }, dispatchAll));

      await waitUntil(() => results.size >= 50 || failures.length > 0, 30_000, '50 results');
      await stop(nats, 'SIGKILL');
      const atKill = results.size;
      // Down for a moment, so that publishes, pulls and acks of both clients fail meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 500));
      nats = await startNats(port, store);
      await dispatching;

      console.log(
        `fault (d): NATS killed after ${atKill} of ${TASKS} results; ${[...handled.values()].reduce((a, n) => a + n, 0)} handler runs, ${tasks.duplicates} duplicate results dropped`,
      );
      expect(failures).toEqual([]);
      expect(results.size).toBe(TASKS);
      for (const [i, result] of results) {
        expect(result).toMatchObject({ status: 'success', output: { v: i + 1 } });
      }
      expect(handled.size).toBe(TASKS);
    }, 90_000);
  },
);
