import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { promisify } from 'node:util';
import type { EgressPolicy } from '@weft/core';

const lookupAll = promisify(dnsLookup);

/** The error of a connection the egress policy refused (the router treats it as unreachable). */
export class EgressRefusedError extends Error {
  readonly code = 'EGRESS_REFUSED';
  constructor(message: string) {
    super(message);
    this.name = 'EgressRefusedError';
  }
}

/**
 * Why calling `hostname` is refused, or `undefined`. An IP literal is checked as it is; a name is
 * resolved and refused when any of its addresses is; a name that does not resolve (yet) is let
 * through, since every connection checks again (see {@link egressLookup}).
 */
export async function egressRefusal(
  policy: EgressPolicy,
  hostname: string,
): Promise<string | undefined> {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return policy.refusal(host);
  let addresses: LookupAddress[];
  try {
    addresses = await lookupAll(host, { all: true });
  } catch {
    return undefined;
  }
  for (const { address } of addresses) {
    const refusal = policy.refusal(address);
    if (refusal !== undefined) return `${host} resolves to ${refusal}`;
  }
  return undefined;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for `net.connect` that refuses addresses the policy forbids, so that a name which
 * resolved to an allowed address at registration cannot be re-pointed at a metadata service
 * later (DNS rebinding).
 */
export function egressLookup(policy: EgressPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const list = addresses;
      for (const { address } of list) {
        const refusal = policy.refusal(address);
        if (refusal !== undefined) return callback(new EgressRefusedError(refusal), '');
      }
      if (options.all) return callback(null, list);
      const first = list[0];
      if (!first) return callback(new EgressRefusedError(`${hostname} has no address`), '');
      callback(null, first.address, first.family);
    });
  };
}
