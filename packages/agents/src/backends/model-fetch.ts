import { tapes } from '../run/tape.js';
import { limitedFetch } from './limited-fetch.js';
import { withLiveCallHook } from './live-calls.js';

/**
 * The `fetch` of an agent step's model calls, from the outside in: an agent step that may wait
 * for a tool call's approval records its model exchanges and replays them when it resumes
 * (docs/agents.md#tool-approvals, see `Tape`), so a replayed call goes no further; a live call
 * reserves what it may cost against the budgets across runs first (`withLiveCallHook`), then
 * goes out with its answer's size limited (`limitedFetch`).
 */
export function modelFetch(maxBytes: number, backend?: string): typeof fetch {
  const live = withLiveCallHook(limitedFetch(maxBytes, backend));
  return (input, init) => {
    const tape = tapes.getStore();
    return tape ? tape.fetch(input, init, live) : live(input, init);
  };
}
