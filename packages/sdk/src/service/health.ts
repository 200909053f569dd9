import type { HealthResponse } from '@weft/core';

/** What a dependency check answers: a check status (docs/protocol.md#health), or true (healthy) / false (unhealthy). */
export type CheckResult = 'healthy' | 'degraded' | 'unhealthy' | boolean;

/** Dependency checks of a connector service, by name (e.g. `database`). */
export type HealthChecks = Record<string, () => CheckResult | Promise<CheckResult>>;

/**
 * Runs every check (each within `timeoutMs`) and builds the answer (docs/protocol.md#health): `unhealthy` when a
 * check says so, throws or times out; `degraded` when one is degraded; else `ok`.
 */
export async function runHealthChecks(
  checks: HealthChecks,
  timeoutMs: number,
  version: string,
): Promise<HealthResponse> {
  const entries = await Promise.all(
    Object.entries(checks).map(
      async ([name, check]) => [name, await runOne(check, timeoutMs)] as const,
    ),
  );
  const values = entries.map(([, v]) => v);
  const status = values.includes('unhealthy')
    ? 'unhealthy'
    : values.includes('degraded')
      ? 'degraded'
      : 'ok';
  return { status, version, checks: Object.fromEntries(entries) };
}

async function runOne(check: () => CheckResult | Promise<CheckResult>, timeoutMs: number) {
  let timer: NodeJS.Timeout | undefined;
  try {
    const result = await Promise.race([
      Promise.resolve().then(check),
      new Promise<'unhealthy'>(
        (resolve) => (timer = setTimeout(() => resolve('unhealthy'), timeoutMs)),
      ),
    ]);
    if (result === true) return 'healthy';
    if (result === false) return 'unhealthy';
    return result === 'healthy' || result === 'degraded' ? result : 'unhealthy';
  } catch {
    return 'unhealthy';
  } finally {
    clearTimeout(timer);
  }
}
