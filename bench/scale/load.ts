/**
 * Load of the scale benchmark: executions submitted asynchronously (`POST /workflows/executions`
 * without `Prefer`, so each answers 202 at once) spread over the replicas, the wait until the
 * store holds them all finished, and the bare `node:http` round-trip rate as the physical limit.
 */
import { Agent, request } from 'undici';
import { FIVE_STEPS } from './workload.js';

/** Executions of one store by final status (`finished` = completed + failed + canceled). */
export interface Counts {
  completed: number;
  finished: number;
}

/** Reads {@link Counts} from the store. */
export type CountFinished = () => Promise<Counts>;

/** Submits `n` executions round-robin over `replicas`, `parallel` requests at a time. */
export async function submit(
  replicas: readonly string[],
  auth: string,
  n: number,
  parallel = 16,
): Promise<void> {
  const agent = new Agent({ connections: parallel });
  const body = JSON.stringify({ workflow_file: FIVE_STEPS });
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) {
      const response = await request(`${replicas[i % replicas.length]}/workflows/executions`, {
        method: 'POST',
        dispatcher: agent,
        headers: { authorization: auth, 'content-type': 'application/json' },
        body,
      });
      const text = await response.body.text();
      if (response.statusCode !== 202) throw new Error(`start: ${response.statusCode} ${text}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: parallel }, worker));
  } finally {
    await agent.close();
  }
}

/** Polls `count` every 50 ms until `n` executions are finished; throws after `timeoutMs`. */
export async function waitFinished(
  count: CountFinished,
  n: number,
  timeoutMs: number,
): Promise<Counts> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const counts = await count();
    if (counts.finished >= n) return counts;
    if (Date.now() > deadline) {
      throw new Error(`only ${counts.finished} of ${n} executions finished in ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Round trips per second to a bare `node:http` server in another process (`url`), over
 * `seconds`, `parallel` requests at a time: what loopback HTTP between two processes on this
 * machine can do at most.
 */
export async function httpRoundTrips(url: string, seconds: number, parallel = 16) {
  const agent = new Agent({ connections: parallel });
  let done = 0;
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  const worker = async () => {
    while (performance.now() < until) {
      const response = await request(url, { method: 'POST', dispatcher: agent, body: '{}' });
      await response.body.text();
      done++;
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  const elapsed = (performance.now() - started) / 1000;
  await agent.close();
  return { requests: done, seconds: elapsed, perSecond: done / elapsed };
}
