import { ValidationError, type ConnectorKind, type ConnectorRuntime } from '@weft/core';
import { resolveLimits, type LimitName } from './limits.js';
import type { SandboxMode } from './sandbox.js';

/** Why a kind other than `shell` cannot enforce a limit. */
const WHY: Record<Exclude<ConnectorKind, 'shell'>, string> = {
  function: 'a function handler runs inside this process, which weft does not confine',
  http: 'the work of an http action runs in the service it calls; weft limits only its network.bandwidth',
};

/** The limits a `function` or `http` action enforces: none, and the bandwidth. */
const ENFORCED: Record<Exclude<ConnectorKind, 'shell'>, ReadonlySet<LimitName>> = {
  function: new Set(),
  http: new Set(['bandwidth']),
};

/**
 * Checks the limits a `function` or `http` connector (or the step) declares against what that
 * kind can enforce: in `strict` mode one it cannot is `VALIDATION` (`details {field:
 * "runtime.<limit>", constraint: "sandbox", limit, missing}`); in `best-effort` mode it is
 * warned of once per connector (`warned` remembers which).
 */
export function checkKindLimits(
  kind: Exclude<ConnectorKind, 'shell'>,
  runtimes: { connector: ConnectorRuntime | undefined; step: ConnectorRuntime | undefined },
  context: { call: string; connector: string; mode: SandboxMode; warned: Set<string> },
  warn: ((message: string) => void) | undefined,
): void {
  if (!runtimes.connector && !runtimes.step) return;
  const { declared } = resolveLimits(runtimes.connector, runtimes.step);
  const missing = [...declared].filter((limit) => !ENFORCED[kind].has(limit));
  const first = missing[0];
  if (first === undefined) return;
  if (context.mode === 'strict') {
    throw new ValidationError(
      `${context.call}: the declared ${missing.join(', ')} cannot be enforced: ${WHY[kind]}; remove the limit, or run with WEFT_SANDBOX=best-effort to accept it unenforced`,
      { field: `runtime.${first}`, constraint: 'sandbox', limit: first, missing: WHY[kind] },
    );
  }
  if (context.warned.has(context.connector)) return;
  context.warned.add(context.connector);
  warn?.(
    `sandbox (best-effort): ${context.connector} declares limits a ${kind} action does not enforce: ${missing.join(', ')} (${WHY[kind]})`,
  );
}
