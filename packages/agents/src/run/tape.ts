import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { ToolDecision } from '@weft/engine';

/** One model HTTP exchange of an agent step: the request's hash and the answer. */
export interface RecordedExchange {
  /** sha256 of method, URL and body of the request. */
  readonly hash: string;
  readonly status: number;
  readonly contentType: string | null;
  /** The answer's body, base64. */
  readonly body: string;
}

/** What a tool call of the step gave: its output, or the error message the model got. */
export type RecordedTool =
  | { readonly output: unknown }
  | {
      readonly error: string;
      readonly code: string;
      /** The call was rejected before it ran (no decision to run it). */
      readonly rejected?: true;
    };

/**
 * What an agent step attempt did before it stopped to wait for a decision on a tool call: its
 * model exchanges (replayed in order at the fetch layer, no network call, no cost), the results
 * of its tool calls (not run again) and the decisions taken so far, by tool call id.
 */
export interface AgentTape {
  readonly version: 1;
  readonly exchanges: readonly RecordedExchange[];
  readonly tools: Readonly<Record<string, RecordedTool>>;
  readonly decisions: Readonly<Record<string, ToolDecision>>;
  /** USD the recorded turns cost (already counted: not again when replayed). */
  readonly costUsd: number;
}

/** The tape of the agent step running in this async context (see {@link Tape}). */
export const tapes = new AsyncLocalStorage<Tape>();

/** Reads a saved tape; undefined when `value` is none. */
export function asTape(value: unknown): AgentTape | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const tape = value as Partial<AgentTape>;
  if (tape.version !== 1 || !Array.isArray(tape.exchanges)) return undefined;
  return {
    version: 1,
    exchanges: tape.exchanges,
    tools: tape.tools ?? {},
    decisions: tape.decisions ?? {},
    costUsd: typeof tape.costUsd === 'number' ? tape.costUsd : 0,
  };
}

/**
 * Records an agent step's model exchanges and tool results as it runs, and replays those of a
 * saved tape: a request whose hash matches a recorded one (in order) is answered from the tape
 * without reaching the network. `limitedFetch` asks it through {@link tapes}.
 */
export class Tape {
  private readonly exchanges: RecordedExchange[] = [];
  private readonly replay = new Map<string, RecordedExchange[]>();
  private readonly tools: Record<string, RecordedTool>;
  private readonly decisions: Record<string, ToolDecision>;
  private readonly recording = new Set<Promise<void>>();
  /** Model requests answered from the tape. */
  replayed = 0;
  /** Whether the last model request was answered from the tape. */
  lastReplayed = false;

  constructor(readonly saved: AgentTape | undefined) {
    for (const exchange of saved?.exchanges ?? []) {
      const queue = this.replay.get(exchange.hash) ?? [];
      queue.push(exchange);
      this.replay.set(exchange.hash, queue);
    }
    this.tools = { ...saved?.tools };
    this.decisions = { ...saved?.decisions };
  }

  /** Number of exchanges the saved tape holds (the turns that will be replayed). */
  get savedTurns(): number {
    return this.saved?.exchanges.length ?? 0;
  }

  tool(callId: string): RecordedTool | undefined {
    return this.tools[callId];
  }

  recordTool(callId: string, result: RecordedTool): void {
    this.tools[callId] = result;
  }

  decision(callId: string): ToolDecision | undefined {
    return this.decisions[callId];
  }

  recordDecision(callId: string, decision: ToolDecision): void {
    this.decisions[callId] = decision;
  }

  /** Answers a model request from the tape, or through `network` (recording the answer). */
  async fetch(
    input: Parameters<typeof fetch>[0],
    init: Parameters<typeof fetch>[1],
    network: typeof fetch,
  ): Promise<Response> {
    init?.signal?.throwIfAborted();
    const hash = await requestHash(input, init);
    const recorded = hash === undefined ? undefined : this.replay.get(hash)?.shift();
    if (recorded) {
      this.replayed++;
      this.lastReplayed = true;
      this.exchanges.push(recorded);
      return new Response(Buffer.from(recorded.body, 'base64'), {
        status: recorded.status,
        headers: recorded.contentType ? { 'content-type': recorded.contentType } : {},
      });
    }
    this.lastReplayed = false;
    const response = await network(input, init);
    if (hash === undefined || !response.ok || !response.body) return response;
    const copy = response.clone();
    const write = copy
      .arrayBuffer()
      .then((body) => {
        this.exchanges.push({
          hash,
          status: response.status,
          contentType: response.headers.get('content-type'),
          body: Buffer.from(body).toString('base64'),
        });
      })
      .catch(() => {}) // an answer cut short is not recorded: its turn runs again
      .finally(() => this.recording.delete(write));
    this.recording.add(write);
    return response;
  }

  /** What to save: the exchanges so far (once their answers are read) and the tool results. */
  async snapshot(costUsd: number): Promise<AgentTape> {
    while (this.recording.size > 0) await Promise.all(this.recording);
    return {
      version: 1,
      exchanges: [...this.exchanges],
      tools: { ...this.tools },
      decisions: { ...this.decisions },
      costUsd,
    };
  }
}

/** sha256 of a request's method, URL and body; undefined for a body that is not text or bytes. */
async function requestHash(
  input: Parameters<typeof fetch>[0],
  init: Parameters<typeof fetch>[1],
): Promise<string | undefined> {
  const request = input instanceof Request ? input : undefined;
  const url = request ? request.url : String(input);
  const method = init?.method ?? request?.method ?? 'GET';
  let body: string | Uint8Array | undefined;
  const given = init?.body;
  if (typeof given === 'string' || given instanceof Uint8Array) body = given;
  else if (given instanceof ArrayBuffer) body = new Uint8Array(given);
  else if (given === undefined || given === null) {
    body = request?.body ? new Uint8Array(await request.clone().arrayBuffer()) : '';
  } else return undefined;
  return createHash('sha256').update(`${method} ${url}\n`).update(body).digest('hex');
}
