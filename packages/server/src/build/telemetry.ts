import { startTelemetry, type Telemetry } from '@weft/telemetry/setup';
import type { InFlightTracking } from '../in-flight.js';
import { observedSources } from '../metrics.js';
import type { ServerBroker } from '../server-broker.js';
import type { Router } from '@weft/router';
import type { BuildContext } from './context.js';

/**
 * The telemetry phase, first: traces (when configured) and the metric instruments, shut down
 * last (unless given), so that the spans of runs that end while the server closes are sent;
 * a collector that does not answer delays that by at most a second (one warning says what
 * was dropped).
 */
export function openTelemetry(context: BuildContext): Telemetry {
  const { options, dependencies, stack } = context;
  if (dependencies.telemetry) return dependencies.telemetry;
  // No active spans: runs pass trace context explicitly, and an active context would cost every
  // promise of the server an async hook (see TelemetryOptions.activeSpans).
  const telemetry = startTelemetry({ ...options.telemetry, activeSpans: false });
  stack.push(() => telemetry.shutdown((message) => context.warn?.(message)));
  return telemetry;
}

/** What the server's gauges read (`weft_*` at `GET /metrics`). */
export interface ObservedParts {
  telemetry: Telemetry;
  router: Router;
  tracked: InFlightTracking | undefined;
  broker: ServerBroker | undefined;
}

/** Points the gauges at the routing table, the executions in flight and the broker's queues. */
export function observeServer({ options }: BuildContext, parts: ObservedParts): void {
  const { telemetry, router, tracked, broker } = parts;
  telemetry.metrics.observe(
    observedSources({
      replica: options.replicaId,
      routes: router.options.store,
      ...(tracked
        ? {
            inFlight: tracked.inFlight,
            claimable: () => tracked.store.claimableCount(Date.now()),
          }
        : {}),
      ...(broker ? { broker: broker.broker, resultsGroup: broker.resultsGroup } : {}),
    }),
  );
}
