import type * as Undici from 'undici';
import {
  TransportError,
  UNREACHABLE_CODES,
  type HttpTransport,
  type TransportRequest,
  type TransportResponse,
} from '../http-client/transport.js';

let loading: Promise<typeof Undici> | undefined;

/**
 * undici, imported at the first HTTP call that needs it instead of with the SDK: it is over a
 * hundred modules, and a workflow run on this machine that calls no HTTP service never needs it,
 * so `weft workflow run` starts without it.
 */
export function loadUndici(): Promise<typeof Undici> {
  return (loading ??= import('undici'));
}

/**
 * An undici `Agent` (a connection pool) made with `options` at its first use, which imports
 * undici ({@link loadUndici}). Closed before its first use, it is made closed, so later requests
 * fail as they would through an agent made at once and closed.
 */
export class LazyAgent {
  private made: Promise<Undici.Agent> | undefined;
  private closed = false;

  constructor(private readonly options: Undici.Agent.Options) {}

  /** The agent, made (and undici imported) at the first call. */
  get(): Promise<Undici.Agent> {
    this.made ??= loadUndici().then(async ({ Agent }) => {
      const agent = new Agent(this.options);
      if (this.closed) await agent.close();
      return agent;
    });
    return this.made;
  }

  /** Closes the agent's connections; nothing to do (and nothing imported) when it was never used. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.made) await (await this.made).close();
  }
}

/**
 * The Node SDK's transport: undici's `request` over one keep-alive agent (cheaper per call than
 * `fetch`, which matters to the per-action calls of `hybrid` mode). undici is imported at the first
 * call.
 */
export class UndiciTransport implements HttpTransport {
  private readonly agent = new LazyAgent({ keepAliveTimeout: 30_000 });

  async send(call: TransportRequest): Promise<TransportResponse> {
    try {
      const { request } = await loadUndici();
      const response = await request(call.url, {
        method: call.method,
        dispatcher: await this.agent.get(),
        headers: call.headers,
        ...(call.body !== undefined ? { body: call.body } : {}),
        ...(call.signal ? { signal: call.signal } : {}),
      });
      return {
        status: response.statusCode,
        headers: response.headers,
        body: response.body as AsyncIterable<Uint8Array>,
      };
    } catch (error) {
      if (call.signal?.aborted) throw error;
      const code = (error as { code?: unknown }).code;
      const known = typeof code === 'string' ? code : '';
      throw new TransportError(
        error instanceof Error ? error.message : String(error),
        known,
        UNREACHABLE_CODES.has(known),
        { cause: error },
      );
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
