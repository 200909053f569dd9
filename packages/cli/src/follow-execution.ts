import type { StreamEvent } from '@weft/core';
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
  const live = new LiveStepList(io);
  try {
    for await (const event of stream) live.apply(event);
  } finally {
    live.stop();
  }
  return live.list.end?.status ?? (await finalStatus(client, id, options));
}

/**
 * The live step list on a terminal: redrawn in place on stdout on every event and
 * {@link FRAME_MS} apart (the spinner turns, running steps count their time) from the first
 * event until {@link stop}. Shared by `weft execution events --follow` and `weft workflow run
 * --cloud`.
 */
export class LiveStepList {
  readonly list = new StepList();
  private drawn = 0;
  private frame = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly io: Io) {}

  /** Applies one event of the execution and redraws. */
  readonly apply = (event: StreamEvent): void => {
    this.list.apply(event);
    this.timer ??= setInterval(this.draw, FRAME_MS);
    this.draw();
  };

  /** Stops the spinner and draws the list a last time (nothing when no event came). */
  stop(): void {
    if (this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.draw();
  }

  private readonly draw = (): void => {
    const lines = this.list.lines(Date.now(), this.frame++);
    const back = this.drawn > 0 ? `\x1b[${this.drawn}F\x1b[J` : '';
    this.io.out(`${back}${lines.map((l) => `${l}\n`).join('')}`);
    this.drawn = lines.length;
  };
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
