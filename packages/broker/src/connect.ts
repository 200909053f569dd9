import { ValidationError, type Broker } from '@weft/core';
import { KafkaBroker } from './kafka/kafka-broker.js';
import { MemoryBroker } from './memory/memory-broker.js';
import { NatsBroker } from './nats/nats-broker.js';

/** A parsed broker address. */
export interface BrokerAddress {
  kind: 'memory' | 'nats' | 'kafka';
  /** `host:port` entries (none for memory). */
  hosts: string[];
  /** Query parameters: `namespace`, `stream_prefix`, `storage` (nats), `partitions` (kafka). */
  params: Record<string, string>;
}

const HOST_PATTERN = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;
const PARAMS: Record<BrokerAddress['kind'], readonly string[]> = {
  memory: [],
  nats: ['namespace', 'stream_prefix', 'storage'],
  kafka: ['namespace', 'partitions'],
};

function invalid(url: string, constraint: string): ValidationError {
  return new ValidationError(`broker address ${JSON.stringify(url)} is invalid: ${constraint}`, {
    field: 'broker',
    constraint: 'memory, nats://host:port[,host:port...] or kafka://host:port[,host:port...]',
  });
}

/** Parses `memory`, `nats://h:p,h:p?namespace=x` or `kafka://h:p,h:p`. */
export function parseBrokerUrl(url: string): BrokerAddress {
  const trimmed = url.trim();
  if (trimmed === '' || trimmed === 'memory' || trimmed === 'memory://') {
    return { kind: 'memory', hosts: [], params: {} };
  }
  const match = /^(nats|kafka):\/\/([^?]*)(?:\?(.*))?$/.exec(trimmed);
  if (match === null) throw invalid(url, 'unknown scheme');
  const kind = match[1] as 'nats' | 'kafka';
  const hosts = match[2]!.split(',').filter((host) => host !== '');
  if (hosts.length === 0) throw invalid(url, 'no host');
  for (const host of hosts) {
    if (!HOST_PATTERN.test(host)) throw invalid(url, `bad host ${JSON.stringify(host)}`);
  }
  const params: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(match[3] ?? '')) {
    if (!PARAMS[kind].includes(name)) throw invalid(url, `unknown parameter ${name}`);
    params[name] = value;
  }
  if (params['storage'] !== undefined && !['file', 'memory'].includes(params['storage'])) {
    throw invalid(url, 'storage must be file or memory');
  }
  if (params['partitions'] !== undefined && !/^[1-9]\d{0,3}$/.test(params['partitions'])) {
    throw invalid(url, 'partitions must be an integer from 1 to 9999');
  }
  if (params['namespace'] !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(params['namespace'])) {
    throw invalid(url, 'namespace must be 1 to 64 letters, digits, _ or -');
  }
  return { kind, hosts, params };
}

/**
 * Opens the broker an address names: `memory` (or empty, the default), `nats://...` (NATS
 * JetStream) or `kafka://...`. `WEFT_BROKER` holds this address; only `server` and `cli` read it.
 */
export async function connectBroker(url = 'memory'): Promise<Broker> {
  const address = parseBrokerUrl(url);
  switch (address.kind) {
    case 'memory':
      return new MemoryBroker();
    case 'nats':
      return NatsBroker.connect({
        servers: address.hosts.map((host) => `nats://${host}`),
        namespace: address.params['namespace'],
        streamPrefix: address.params['stream_prefix'],
        storage: address.params['storage'] as 'file' | 'memory' | undefined,
      });
    case 'kafka':
      return KafkaBroker.connect({
        brokers: address.hosts,
        namespace: address.params['namespace'],
        partitions:
          address.params['partitions'] === undefined
            ? undefined
            : Number(address.params['partitions']),
      });
  }
}
