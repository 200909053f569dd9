import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** A parsed list of addresses and CIDR ranges. */
export interface AddressList {
  /** True when `address` (already normalised) is in the list. */
  contains(address: Address): boolean;
}

/**
 * Parses an address: IPv4, IPv6 (zone ids dropped) and IPv4-mapped IPv6 (`::ffff:1.2.3.4`,
 * normalised to the IPv4 address). Undefined when it is not an address.
 */
export function parseAddress(text: string | undefined): Address | undefined {
  if (text === undefined) return undefined;
  const trimmed = text
    .trim()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/%.*$/, '');
  if (!ipaddr.isValid(trimmed)) return undefined;
  const parsed = ipaddr.parse(trimmed);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed;
}

/**
 * Compiles a list of IPs and CIDRs (`10.0.0.1`, `10.0.0.0/8`, `2001:db8::/32`,
 * `::ffff:10.0.0.0/104`). Throws an `Error` naming the first bad entry.
 */
export function compileAddressList(entries: readonly string[]): AddressList {
  const ranges: [Address, number][] = entries.map((entry) => {
    try {
      if (entry.includes('/')) {
        const [address, bits] = ipaddr.parseCIDR(entry.trim());
        if (
          address.kind() === 'ipv6' &&
          (address as ipaddr.IPv6).isIPv4MappedAddress() &&
          bits >= 96
        ) {
          return [(address as ipaddr.IPv6).toIPv4Address(), bits - 96];
        }
        return [address, bits];
      }
      const address = parseAddress(entry);
      if (!address) throw new Error('not an address');
      return [address, address.kind() === 'ipv4' ? 32 : 128];
    } catch {
      throw new Error(`"${entry}" is not an IP address or CIDR range such as 10.0.0.0/8`);
    }
  });
  return {
    contains: (address) =>
      ranges.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits)),
  };
}

/**
 * The client address of a request: the socket's peer, unless that peer is a trusted proxy; then
 * `X-Forwarded-For` is read right to left, skipping trusted proxies, and the first address that
 * is not one is the client. An unreadable entry ends the walk there (the request is refused by an
 * allowlist, since it has no address). Without trusted proxies the header is ignored.
 */
export function clientAddress(
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustedProxies: AddressList | undefined,
): Address | undefined {
  let current = parseAddress(peer);
  if (!current || !trustedProxies || !trustedProxies.contains(current)) return current;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? ''))
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h !== '');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = parseAddress(hops[i]);
    if (!hop) return undefined;
    current = hop;
    if (!trustedProxies.contains(hop)) return hop;
  }
  return current;
}
