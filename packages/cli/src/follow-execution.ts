import type { WeftClient } from '@weft/sdk/client';
import type { Io } from './io.js';
import { StepList } from './step-list.js';

/** Redraws of the live step list per second. */
const FRAME_MS = 100;

/** Options of {@link followExecution}. */
export interface FollowOptions {
  /** Resume after this event id. */
  after?: string;
  /** false: only the events stored so far. Default true: until the execution ends. */
  follow?: boolean;
}

/**
 * Prints the events of an execution: on a terminal (`io.live`) a step list redrawn in place
 * (a spinner and the time so far for running steps, durations, attempts and errors of ended
 * ones, then how the run ended); elsewhere one JSON line per event with its `id`. Resolves to
 * the execution's final status, or undefined when the stream ended before it did.
 */
export async function followExecution(
  io: Io,
  client: WeftClient,
  id: string,
  options: FollowOptions = {},
): Promise<string | undefined> {
  const stream = client.streamEvents(id, {
    ...(options.after !== undefined ? { lastEventId: options.after } : {}),
    follow: options.follow ?? true,
  });
  let ended: string | undefined;
  if (!io.live) {
    for await (const event of stream) {
      io.out(`${JSON.stringify(event)}\n`);
      if (event.type === 'workflow.completed') ended = String(event.data['status'] ?? '');
    }
    return ended ?? (await finalStatus(client, id, options));
  }
  const list = new StepList();
  let drawn = 0;
  let frame = 0;
  const draw = () => {
    const lines = list.lines(Date.now(), frame++);
    io.out(`${drawn > 0 ? `\x1b[${drawn}F\x1b[J` : ''}${lines.map((l) => `${l}\n`).join('')}`);
    drawn = lines.length;
  };
  const timer = setInterval(draw, FRAME_MS);
  try {
    for await (const event of stream) {
      list.apply(event);
      draw();
    }
  } finally {
    clearInterval(timer);
  }
  draw();
  return list.end?.status ?? (await finalStatus(client, id, options));
}

/** The status of an ended execution whose stream had no `workflow.completed` (not recorded). */
async function finalStatus(
  client: WeftClient,
  id: string,
  options: FollowOptions,
): Promise<string | undefined> {
  if (options.follow === false) return undefined;
  const record = await client.getExecution(id);
  return ['completed', 'failed', 'canceled'].includes(record.status) ? record.status : undefined;
}
