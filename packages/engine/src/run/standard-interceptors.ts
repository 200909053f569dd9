import type { RunInterceptor } from './interceptors.js';

/**
 * The interceptors a run may have, each left out when undefined. The SDK's local runs and the
 * runtime's server runs fill the parts they have; {@link standardInterceptors} puts them in order.
 */
export interface StandardInterceptorParts {
  /** Step and action-call spans (`@weft/telemetry`'s tracing interceptor). */
  tracing?: RunInterceptor | undefined;
  /** The check of steps' `authorization.permissions` (the engine's `stepPermissions()`). */
  stepPermissions?: RunInterceptor | undefined;
  /** The content guardrails of steps (`@weft/guardrails`' interceptor). */
  guardrails?: RunInterceptor | undefined;
  /** Answers of a dry run from `mockData` (a `DryRunInterceptor`). */
  mocks?: RunInterceptor | undefined;
  /** Counts the action calls a run is billed for (server runs). */
  usage?: RunInterceptor | undefined;
  /** The metric instruments' interceptor (`@weft/telemetry`'s metrics). */
  metrics?: RunInterceptor | undefined;
}

/**
 * The interceptor chain of a run, outermost first, in the one order every run uses:
 *
 * 1. `tracing`: spans wrap everything else, so a step's span covers its permission check, its
 *    guardrails and every invoker it reaches.
 * 2. `stepPermissions`: a refused step does nothing further, so there is nothing to check.
 * 3. `guardrails`: around mocked answers too, so that `workflow test` fixtures meet them.
 * 4. `mocks`: after the permission check, so a refused step is not answered from `mockData`.
 * 5. `usage`, then `metrics`: innermost, they count what reached an invoker.
 */
export function standardInterceptors(parts: StandardInterceptorParts): RunInterceptor[] {
  const ordered = [
    parts.tracing,
    parts.stepPermissions,
    parts.guardrails,
    parts.mocks,
    parts.usage,
    parts.metrics,
  ];
  return ordered.filter((part): part is RunInterceptor => part !== undefined);
}
