import { AsyncLocalStorage } from 'node:async_hooks';
import type { AgentRequest, LiveCallTicket, LiveModelCall } from '../run/contract.js';

type Reserve = NonNullable<AgentRequest['reserveModelCall']>;

/**
 * The reservation hook of the agent step whose model calls run in this async context: a
 * backend's model (and its `fetch`) may be shared by steps, the hook is each step's own.
 */
const current = new AsyncLocalStorage<Reserve | undefined>();

/** Runs `work` with `request`'s {@link AgentRequest.reserveModelCall} as the live-call hook. */
export function runWithLiveCallHook<T>(request: AgentRequest, work: () => Promise<T>): Promise<T> {
  return current.run(request.reserveModelCall?.bind(request), work);
}

/**
 * Wraps a model's `fetch`: before each request goes out, the hook of the step running it (see
 * {@link runWithLiveCallHook}) reserves what it may cost, or refuses it (it is not sent: the
 * hook's error is thrown, marked so that no model client retries it). A request that gets no
 * answer, or an HTTP error status, is released at once. Without a hook, `fetch` as is. A layer
 * that answers calls from a record wraps this one from outside: a recorded call never reaches it.
 */
export function withLiveCallHook(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    const reserve = current.getStore();
    if (!reserve) return fetch(input, init);
    let ticket: LiveCallTicket;
    try {
      ticket = await reserve(estimateOf(init?.body));
    } catch (error) {
      throw noRetry(error);
    }
    let response: Response;
    try {
      response = await fetch(input, init);
    } catch (error) {
      await ticket.failed();
      throw error;
    }
    if (!response.ok) await ticket.failed();
    return response;
  };
}

/** Marks an error so that the model clients' retries and weft's leave it alone. */
export const NOT_RETRIED = Symbol.for('weft.agents.not-retried');

function noRetry(error: unknown): unknown {
  if (error instanceof Error) (error as unknown as Record<symbol, boolean>)[NOT_RETRIED] = true;
  return error;
}

/** Finds an error marked {@link NOT_RETRIED} in the `cause` chain. */
export function findNotRetried(error: unknown): Error | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    if (NOT_RETRIED in e) return e;
  }
  return undefined;
}

const OUTPUT_CAPS = ['max_tokens', 'max_completion_tokens', 'max_output_tokens'];

/** What bounds a request's cost: its body's size and the output cap it carries. */
function estimateOf(body: unknown): LiveModelCall {
  let text: string | undefined;
  let bytes: number | undefined;
  if (typeof body === 'string') {
    text = body;
    bytes = Buffer.byteLength(body, 'utf8');
  } else if (body instanceof Uint8Array || body instanceof ArrayBuffer) {
    bytes = body.byteLength;
    text = Buffer.from(body instanceof ArrayBuffer ? new Uint8Array(body) : body).toString('utf8');
  }
  let maxOutputTokens: number | undefined;
  if (text !== undefined) {
    try {
      const parsed = JSON.parse(text) as Record<string, unknown>;
      for (const key of OUTPUT_CAPS) {
        const value = parsed[key];
        if (typeof value === 'number' && Number.isFinite(value) && value >= 0) {
          maxOutputTokens = value;
          break;
        }
      }
    } catch {
      // Not JSON: the size still bounds the input; the cap comes from the step.
    }
  }
  return { requestBytes: bytes, maxOutputTokens };
}
