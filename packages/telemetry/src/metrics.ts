import type { Counter, Histogram, Meter } from '@opentelemetry/api';
import type { RunInterceptor } from '@weft/engine';
import { errorCodeOf } from './errors.js';
import { pluginName } from './interceptor.js';

/** Bucket boundaries of the duration histograms, in seconds (not the exporter's milliseconds). */
export const DURATION_BUCKETS_SECONDS = [
  0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
];

/** Values read when metrics are collected (scraped or exported). */
export interface ObservedSources {
  /** Executions this process runs now. */
  inFlight?: () => number;
  /** The `replica` label of `weft_executions_in_flight`. */
  replica?: string;
  /** Messages not yet acknowledged, per broker topic and consumer group. */
  queueDepths?: () => Promise<readonly { topic: string; group: string; depth: number }[]>;
  /** Router instances by health (`ok`, `degraded`, `unhealthy`). */
  routerInstances?: () => Promise<Readonly<Record<string, number>>>;
}

/**
 * weft's instruments on an OpenTelemetry meter (docs/observability.md#metrics). Labels are
 * bounded: plugin, action, workflow names, statuses and error codes, never ids.
 */
export class WeftMetrics {
  /** Counts and times every action call (each attempt), and the retries: for the run's chain. */
  readonly interceptor: RunInterceptor;
  private readonly executions: Counter;

  constructor(private readonly meter: Meter) {
    const actions = meter.createCounter('weft_action_executions_total', {
      description: 'Action calls (every attempt), by plugin, action and status.',
    });
    const duration: Histogram = meter.createHistogram('weft_action_duration_seconds', {
      description: 'Duration of action calls, in seconds.',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS_SECONDS },
    });
    const retries = meter.createCounter('weft_step_retries_total', {
      description: 'Attempts of action steps after the first one.',
    });
    this.executions = meter.createCounter('weft_executions_total', {
      description: 'Executions ended, by workflow and status.',
    });
    this.interceptor = {
      name: 'metrics',
      invoke(call, next) {
        const started = performance.now();
        const plugin = pluginName(call.target);
        if (call.attempt > 1) retries.add(1, { plugin, action: call.action });
        return next(call).then(
          (result) => {
            const labels = { plugin, action: call.action, status: 'success' };
            actions.add(1, labels);
            duration.record((performance.now() - started) / 1000, labels);
            return result;
          },
          (error: unknown) => {
            const labels = {
              plugin,
              action: call.action,
              status: 'failed',
              code: errorCodeOf(error),
            };
            actions.add(1, labels);
            duration.record((performance.now() - started) / 1000, labels);
            throw error;
          },
        );
      },
    };
  }

  /** Counts an ended execution. */
  executionEnded(workflow: string, status: string): void {
    this.executions.add(1, { workflow, status });
  }

  /** Registers the gauges read at collection time. */
  observe(sources: ObservedSources): void {
    const { inFlight, queueDepths, routerInstances, replica } = sources;
    if (inFlight) {
      this.meter
        .createObservableGauge('weft_executions_in_flight', {
          description: 'Executions this process runs now (holds a lease on).',
        })
        .addCallback((result) => result.observe(inFlight(), replica ? { replica } : {}));
    }
    if (queueDepths) {
      this.meter
        .createObservableGauge('weft_queue_depth', {
          description: 'Messages of a broker topic not yet acknowledged by its consumer group.',
        })
        .addCallback(async (result) => {
          for (const { topic, group, depth } of await queueDepths())
            result.observe(depth, { topic, group });
        });
    }
    if (routerInstances) {
      this.meter
        .createObservableGauge('weft_router_instances', {
          description: 'Connector service instances in the routing table, by health.',
        })
        .addCallback(async (result) => {
          for (const [health, count] of Object.entries(await routerInstances()))
            result.observe(count, { health });
        });
    }
  }
}
