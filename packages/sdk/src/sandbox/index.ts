export { Sandbox, type SandboxMode, type SandboxOptions, type CellRequest } from './sandbox.js';
export { Cell, type Breach, type WrappedCommand, WATCH_MS } from './cell.js';
export type { HostCapabilities, LimitSupport } from './host.js';
export {
  LIMIT_NAMES,
  SANDBOX_DEFAULTS,
  resolveLimits,
  type LimitName,
  type SandboxLimits,
} from './limits.js';
export type { CgroupFacts } from './cgroup-discovery.js';
export { sandboxLogLine, type SandboxLogLine } from './summary.js';
