import ipaddr from 'ipaddr.js';
import { ValidationError } from '../errors/index.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

/**
 * Addresses weft never calls out to unless allow-listed: link-local ranges (169.254.0.0/16,
 * fe80::/10) and the instance-metadata endpoints of the big clouds (AWS IPv6 `fd00:ec2::254`,
 * Alibaba `100.100.100.200`, Oracle `192.0.0.192`; 169.254.169.254 is link-local already).
 */
export const BLOCKED_EGRESS_CIDRS: readonly string[] = [
  '169.254.0.0/16',
  'fe80::/10',
  'fd00:ec2::254/128',
  '100.100.100.200/32',
  '192.0.0.192/32',
];

/**
 * Which addresses weft may call out to (router instances, health checks, callbacks): every
 * address but {@link BLOCKED_EGRESS_CIDRS}, unless it is inside one of the allow-listed CIDRs
 * (`WEFT_EGRESS_ALLOWLIST`). IPv4 addresses embedded in IPv6 ones (`::ffff:a.b.c.d`, NAT64
 * `64:ff9b::/96`, 6to4 `2002::/16`) are checked as the IPv4 address they reach.
 */
export class EgressPolicy {
  private readonly blocked: Cidr[];
  private readonly allowed: Cidr[];

  /** `allowlist`: CIDRs (`10.0.0.0/8`) or single addresses; throws `VALIDATION` on a bad one. */
  constructor(allowlist: readonly string[] = []) {
    this.blocked = BLOCKED_EGRESS_CIDRS.map((c) => ipaddr.parseCIDR(c));
    this.allowed = allowlist.map(parseAllowed);
  }

  /** The allow-listed CIDRs, normalized. */
  get allowlist(): string[] {
    return this.allowed.map(([address, bits]) => `${address.toString()}/${bits}`);
  }

  /**
   * Why `address` (an IP literal) may not be called, or `undefined` when it may. An address that
   * does not parse is refused.
   */
  refusal(address: string): string | undefined {
    let parsed: Address;
    try {
      parsed = ipaddr.parse(address.replace(/^\[|\]$/g, ''));
    } catch {
      return `${address} is not an IP address`;
    }
    const candidates = [parsed, ...embeddedIPv4(parsed)];
    if (candidates.some((a) => this.allowed.some((cidr) => matches(a, cidr)))) return undefined;
    for (const candidate of candidates) {
      const hit = this.blocked.find((cidr) => matches(candidate, cidr));
      if (hit) {
        return `${address} is a link-local or cloud metadata address (${hit[0].toString()}/${hit[1]}); add it to WEFT_EGRESS_ALLOWLIST to allow it`;
      }
    }
    return undefined;
  }

  /** True when `address` (an IP literal) may be called. */
  allows(address: string): boolean {
    return this.refusal(address) === undefined;
  }
}

/** Parses a comma-separated CIDR list (`WEFT_EGRESS_ALLOWLIST`); empty items are ignored. */
export function parseCidrList(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function parseAllowed(text: string): Cidr {
  try {
    if (text.includes('/')) return ipaddr.parseCIDR(text);
    const address = ipaddr.parse(text);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  } catch {
    throw new ValidationError(
      `egress allowlist entry "${text}" is not a CIDR such as 10.0.0.0/8 or fd00::/8`,
      { field: 'egressAllowlist', constraint: 'cidr' },
    );
  }
}

function matches(address: Address, [network, bits]: Cidr): boolean {
  return address.kind() === network.kind() && address.match(network, bits);
}

/** IPv4 addresses an IPv6 address reaches: mapped, NAT64 (RFC 6052) and 6to4. */
function embeddedIPv4(address: Address): ipaddr.IPv4[] {
  if (address.kind() !== 'ipv6') return [];
  const v6 = address as ipaddr.IPv6;
  const p = v6.parts;
  const fromParts = (hi: number, lo: number) =>
    new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  switch (v6.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
    case 'rfc6052':
      return [fromParts(p[6]!, p[7]!)];
    case '6to4':
      return [fromParts(p[1]!, p[2]!)];
    default:
      return [];
  }
}
