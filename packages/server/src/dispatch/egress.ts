import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { ForbiddenError } from '@weft/core';
import { CallbackEgress } from '@weft/runtime';
import type { LocalInvokerOptions } from '@weft/sdk';

/** The egress policy of the `http` requests of published plugins (see {@link pluginEgress}). */
export type PluginEgress = NonNullable<LocalInvokerOptions['httpEgress']>;

/**
 * Where the server sends the `http` requests of published plugins (whose URLs any key holder
 * writes): the policy of callbacks — public addresses only; loopback, private, link-local and
 * metadata addresses only inside `allowlist` (`WEFT_EGRESS_ALLOWLIST`). Every address the host
 * resolves to is checked before connecting, and the address connected to again at connect time
 * (DNS rebinding). `resolve` replaces DNS (tests).
 */
export function pluginEgress(
  allowlist: readonly string[],
  resolve: (host: string) => Promise<string[]> = resolveAll,
): PluginEgress {
  const policy = new CallbackEgress(allowlist, resolve, 'published plugins are called on');
  const checked = policy.lookup();
  const lookup: LookupFunction = (hostname, options, callback) =>
    checked(hostname, options, (error, address, family) => {
      if (error) error.message = named(hostname, error.message.replace(/^egress refused: /, ''));
      callback(error, address, family);
    });
  return {
    async refusal(url) {
      const host = url.hostname.replace(/^\[|\]$/g, '');
      let addresses: string[];
      try {
        addresses = isIP(host) ? [host] : await resolve(host);
      } catch {
        return undefined; // it fails to connect, as unreachable
      }
      for (const address of addresses) {
        const refusal = policy.refusal(address);
        if (refusal !== undefined) {
          return address === host ? refusal : named(host, refusal);
        }
      }
      return undefined;
    },
    lookup,
  };
}

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

/** The refusal of an address `host` resolves to. */
function named(host: string, refusal: string): string {
  return `${host} resolves to ${refusal.split(' ', 1)[0]}: ${refusal}`;
}

async function resolveAll(host: string): Promise<string[]> {
  return (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);
}
