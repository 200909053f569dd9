import type { ConnectorRuntime } from '@weft/core';
import { parseBytes, parseCpu } from '@weft/engine';

/** The limits the sandbox knows, as `details.limit` of a breach names them. */
export const LIMIT_NAMES = [
  'memory',
  'cpu',
  'processes',
  'file_descriptors',
  'storage',
  'disk_io',
  'bandwidth',
] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];

/**
 * The defaults of docs/protocol.md#limits that apply when neither the connector nor the step
 * sets a limit: 0.5 cores, 512MB of memory, 10MB/s of disk I/O. Processes, file descriptors and
 * scratch storage have no default: the host's own limits apply.
 */
export const SANDBOX_DEFAULTS = {
  cpuCores: 0.5,
  memoryBytes: 512e6,
  diskBytesPerSecond: 10e6,
} as const;

/** The limits one action call runs under, with what was written where. */
export interface SandboxLimits {
  /** Cores (`cpu.max` quota over a 100 ms period). */
  readonly cpuCores: number;
  /** Bytes of memory, swap off. */
  readonly memoryBytes: number;
  /** Bytes per second read and written to the scratch directory's block device. */
  readonly diskBytesPerSecond: number;
  /** Tasks (processes and threads) in the group; `undefined`: unlimited. */
  readonly maxProcesses: number | undefined;
  /** `RLIMIT_NOFILE`; `undefined`: the host's. */
  readonly maxFileDescriptors: number | undefined;
  /** Bytes the scratch directory may hold; `undefined`: unlimited. */
  readonly storageBytes: number | undefined;
  /** Delete the scratch directory after the attempt (default true). */
  readonly ephemeral: boolean;
  /**
   * The limits the connector or the step declared (not defaults): those a host that cannot
   * enforce them refuses.
   */
  readonly declared: ReadonlySet<LimitName>;
  /** Each declared limit as written, for messages (`memory: "64MB"`). */
  readonly written: Readonly<Partial<Record<LimitName, string | number>>>;
}

/**
 * Merges the connector's `runtime` and the step's (the step's fields override the connector's
 * one by one) over the defaults. The quantities were checked when the files were loaded; a
 * malformed one here falls back to the default.
 */
export function resolveLimits(
  connector: ConnectorRuntime | undefined,
  step: ConnectorRuntime | undefined,
): SandboxLimits {
  const pick = <T>(get: (r: ConnectorRuntime) => T | undefined): T | undefined => {
    const fromStep = step ? get(step) : undefined;
    return fromStep !== undefined ? fromStep : connector ? get(connector) : undefined;
  };
  const declared = new Set<LimitName>();
  const written: Partial<Record<LimitName, string | number>> = {};
  const note = <T extends string | number>(name: LimitName, value: T | undefined) => {
    if (value === undefined) return;
    declared.add(name);
    written[name] = value;
  };
  const cpu = pick((r) => r.resources?.cpu);
  const memory = pick((r) => r.resources?.memory);
  const maxSize = pick((r) => r.storage?.maxSize);
  const bandwidth = pick((r) => r.network?.bandwidth);
  const maxProcesses = pick((r) => r.limits?.maxProcesses);
  const maxFileDescriptors = pick((r) => r.limits?.maxFileDescriptors);
  note('cpu', cpu);
  note('memory', memory);
  note('storage', maxSize);
  note('bandwidth', bandwidth);
  note('processes', maxProcesses);
  note('file_descriptors', maxFileDescriptors);
  return {
    cpuCores: positive(cpu === undefined ? undefined : parseCpu(cpu)) ?? SANDBOX_DEFAULTS.cpuCores,
    memoryBytes:
      positive(memory === undefined ? undefined : parseBytes(memory)) ??
      SANDBOX_DEFAULTS.memoryBytes,
    diskBytesPerSecond: SANDBOX_DEFAULTS.diskBytesPerSecond,
    maxProcesses,
    maxFileDescriptors,
    storageBytes: positive(maxSize === undefined ? undefined : parseBytes(maxSize)),
    ephemeral: pick((r) => r.storage?.ephemeral) ?? true,
    declared,
    written,
  };
}

function positive(value: number | undefined): number | undefined {
  return value !== undefined && Number.isFinite(value) && value > 0
    ? Math.floor(value * 1e6) / 1e6
    : undefined;
}
