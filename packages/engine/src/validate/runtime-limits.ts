import type { ConnectorRuntime } from '@weft/core';
import type { Path } from '../diagnostics.js';
import type { Reporter } from '../load/reporter.js';
import { parseByteRate, parseBytes, parseCpu } from './quantities.js';

/** Connector limits (docs/protocol.md#limits). */
export const CONNECTOR_LIMITS = {
  maxCpu: 4,
  maxMemoryBytes: 4 * 2 ** 30,
  maxBandwidthBytesPerSecond: 100e6,
} as const;

/** Checks a step's connector runtime configuration (docs/workflow-language.md#connector-runtime) against the limits (docs/protocol.md#limits). */
export function checkRuntime(runtime: ConnectorRuntime, path: Path, reporter: Reporter): void {
  const cpu = runtime.resources?.cpu;
  if (cpu !== undefined) {
    const cores = parseCpu(cpu);
    const at = [...path, 'resources', 'cpu'];
    if (cores === undefined || cores <= 0) {
      reporter.error(
        at,
        'quantity',
        `expected a number of cores such as "0.5" or "500m", found "${cpu}"`,
      );
    } else if (cores > CONNECTOR_LIMITS.maxCpu) {
      reporter.error(
        at,
        'limit',
        `cpu ${cpu} is over the limit of ${CONNECTOR_LIMITS.maxCpu} cores`,
      );
    }
  }
  const memory = runtime.resources?.memory;
  if (memory !== undefined) {
    const bytes = parseBytes(memory);
    const at = [...path, 'resources', 'memory'];
    if (bytes === undefined || bytes <= 0) {
      reporter.error(at, 'quantity', `expected a size such as "512MB" or "2Gi", found "${memory}"`);
    } else if (bytes > CONNECTOR_LIMITS.maxMemoryBytes) {
      reporter.error(at, 'limit', `memory ${memory} is over the limit of 4GB`);
    }
  }
  const maxSize = runtime.storage?.maxSize;
  if (maxSize !== undefined && !(Number(parseBytes(maxSize)) > 0)) {
    reporter.error(
      [...path, 'storage', 'maxSize'],
      'quantity',
      `expected a size such as "1GB", found "${maxSize}"`,
    );
  }
  const bandwidth = runtime.network?.bandwidth;
  if (bandwidth !== undefined) {
    const rate = parseByteRate(bandwidth);
    const at = [...path, 'network', 'bandwidth'];
    if (rate === undefined || rate <= 0) {
      reporter.error(at, 'quantity', `expected a rate such as "10MB/s", found "${bandwidth}"`);
    } else if (rate > CONNECTOR_LIMITS.maxBandwidthBytesPerSecond) {
      reporter.error(at, 'limit', `bandwidth ${bandwidth} is over the limit of 100MB/s`);
    }
  }
}
