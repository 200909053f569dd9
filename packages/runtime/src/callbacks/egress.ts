import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { EgressPolicy, ValidationError } from '@weft/core';

/** Address ranges a callback never reaches unless allow-listed. */
const PRIVATE_RANGES = new Set([
  'unspecified',
  'broadcast',
  'multicast',
  'linkLocal',
  'loopback',
  'carrierGradeNat',
  'private',
  'reserved',
  'uniqueLocal',
  'ipv4Mapped',
  'rfc6145',
  'rfc6052',
  '6to4',
  'teredo',
  'benchmarking',
  'amt',
  'as112',
  'as112v6',
  'orchid2',
  'deprecated',
  'droneRemoteIdProtocolEntityTags',
]);

/**
 * Where callbacks may go: public addresses only. Loopback, private, link-local, metadata and
 * other special-purpose addresses are refused unless inside `WEFT_EGRESS_ALLOWLIST`. Checked at
 * submission on every address the host resolves to, and again at connect time on the address
 * actually connected to (a DNS answer that changes in between is caught).
 */
export class CallbackEgress {
  private readonly policy: EgressPolicy;
  private readonly allowed: [ipaddr.IPv4 | ipaddr.IPv6, number][];

  /** `subject`: what the refusals say goes to public addresses only (`callbacks go to`). */
  constructor(
    allowlist: readonly string[],
    private readonly resolve: (host: string) => Promise<string[]> = defaultResolve,
    private readonly subject = 'callbacks go to',
  ) {
    this.policy = new EgressPolicy(allowlist);
    this.allowed = this.policy.allowlist.map((cidr) => ipaddr.parseCIDR(cidr));
  }

  /** Why a callback may not reach `address` (an IP literal), or undefined. */
  refusal(address: string): string | undefined {
    let parsed: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      parsed = ipaddr.process(address.replace(/^\[|\]$/g, ''));
    } catch {
      return `${address} is not an IP address`;
    }
    if (this.allowed.some(([net, bits]) => parsed.kind() === net.kind() && parsed.match(net, bits)))
      return undefined;
    const range = parsed.range();
    if (PRIVATE_RANGES.has(range)) {
      return `${address} is a ${range} address; ${this.subject} public addresses only (allow it with WEFT_EGRESS_ALLOWLIST)`;
    }
    return this.policy.refusal(parsed.toString());
  }

  /** Checks a callback URL and every address its host resolves to; throws `VALIDATION`. */
  async check(url: string, field = 'callback_url'): Promise<URL> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ValidationError(`${field} is not an absolute URL`, { field, constraint: 'format' });
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new ValidationError(`${field} must be an http or https URL`, {
        field,
        constraint: 'scheme',
      });
    }
    if (parsed.username || parsed.password) {
      throw new ValidationError(`${field} must not carry credentials`, {
        field,
        constraint: 'credentials',
      });
    }
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    let addresses: string[];
    try {
      addresses = isIP(host) ? [host] : await this.resolve(host);
    } catch {
      throw new ValidationError(`${field} host "${host}" does not resolve`, {
        field,
        constraint: 'resolvable',
      });
    }
    for (const address of addresses) {
      const refusal = this.refusal(address);
      if (refusal)
        throw new ValidationError(`${field}: ${refusal}`, { field, constraint: 'egress' });
    }
    return parsed;
  }

  /** A `net.connect` lookup that refuses, at connect time, addresses {@link refusal} refuses. */
  lookup(): LookupFunction {
    return (hostname, options, callback) => {
      this.resolve(hostname).then(
        (addresses) => {
          const allowed = addresses.filter((a) => this.refusal(a) === undefined);
          if (allowed.length === 0) {
            const error = Object.assign(
              new Error(`egress refused: ${this.refusal(addresses[0] ?? hostname) ?? hostname}`),
              { code: 'EGRESS_REFUSED' },
            );
            callback(error, '', 4);
            return;
          }
          if (options.all) {
            callback(
              null,
              allowed.map((address) => ({ address, family: isIP(address) })),
            );
          } else callback(null, allowed[0]!, isIP(allowed[0]!));
        },
        (error: NodeJS.ErrnoException) => callback(error, '', 4),
      );
    };
  }
}

async function defaultResolve(host: string): Promise<string[]> {
  const answers = await dnsLookup(host, { all: true, verbatim: true });
  return answers.map((a) => a.address);
}
