import type { EventRow } from '@weft/core';
import type { Runtime } from '../runtime.js';
import { isFinished } from './queries.js';

/** Events read from the store at a time. */
const PAGE = 500;

/**
 * Sends the stored events of execution `id` after sequence number `after`, in order, then the
 * new ones as they are stored, until the execution has ended and every event was sent (a
 * finished execution replays its history and returns) or `signal` aborts. Woken by this
 * process's writes; polls once a second for executions running elsewhere. With `follow` false
 * it returns after the events stored so far.
 */
export async function followEvents(
  runtime: Runtime,
  id: string,
  after: number,
  send: (row: EventRow) => void | Promise<void>,
  signal: AbortSignal,
  follow = true,
): Promise<void> {
  const { store } = runtime.options;
  const hub = runtime.worker.hub;
  let last = after;
  const drain = async (): Promise<number> => {
    let sent = 0;
    for (;;) {
      const rows = await store.events(id, last, PAGE);
      for (const row of rows) {
        if (signal.aborted) return sent;
        await send(row);
        last = row.seq;
        sent++;
      }
      if (rows.length < PAGE) return sent;
    }
  };
  if (!follow) {
    await drain();
    return;
  }
  while (!signal.aborted) {
    const wake = hub.wait(id, 1000, signal);
    if ((await drain()) > 0) continue;
    const execution = await store.get(id);
    if (!execution || isFinished(execution)) {
      // Its last events were stored with its end: one more read sends them all.
      await drain();
      return;
    }
    await wake;
  }
}
