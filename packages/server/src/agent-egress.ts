import { ForbiddenError } from '@weft/core';
import type { PluginEgress } from './runtime-actions.js';

/**
 * A `fetch` for the model of a published agent (whose `base_url` any key holder writes): the
 * policy of published plugins' requests — every address the host resolves to is checked before
 * the request is sent (public addresses only; loopback, private, link-local and metadata
 * addresses only inside `WEFT_EGRESS_ALLOWLIST`). A refusal fails the step with `FORBIDDEN`
 * naming `base_url`, and nothing is sent.
 */
export function egressCheckedFetch(
  fetch: typeof globalThis.fetch,
  egress: Pick<PluginEgress, 'refusal'>,
  agentRef: string,
): typeof globalThis.fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const refusal = await egress.refusal(url);
    if (refusal !== undefined) {
      throw new ForbiddenError(
        `${agentRef} is a published agent, and its base_url ${url.origin} is refused: ${refusal}`,
        { field: 'base_url', constraint: 'egress', reason: 'egress' },
      );
    }
    return fetch(input, init);
  };
}
