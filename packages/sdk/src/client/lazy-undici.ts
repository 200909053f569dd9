import type * as Undici from 'undici';

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
