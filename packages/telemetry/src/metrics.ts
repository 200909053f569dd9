import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { Attributes, Meter, ObservableCounter } from '@opentelemetry/api';
import type { RunInterceptor } from '@weft/engine';
import { errorCodeOf } from './errors.js';
import { pluginName } from './interceptor.js';

/** Bucket boundaries of the duration histograms, in seconds (not the exporter's milliseconds). */
export const DURATION_BUCKETS_SECONDS = [
  0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
];

/** `weft_action_duration_seconds`: the duration of each action call (a {@link HistogramTally}). */
export const ACTION_DURATIONS: HistogramDescriptor = {
  name: 'weft_action_duration_seconds',
  description: 'Duration of action calls, in seconds.',
  unit: 's',
  boundaries: DURATION_BUCKETS_SECONDS,
};

/**
 * How often the event loop delay is sampled (ms): each sample wakes an idle process, so ten a
 * second rather than fifty; the mean of the samples estimates the same delay.
 */
const LAG_SAMPLE_MS = 100;

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

/** Counts by label set, kept here and read by an observable counter at collection. */
class Tally {
  private readonly counts = new Map<string, { labels: Attributes; value: number }>();

  add(key: string, labels: () => Attributes, n = 1): void {
    const entry = this.counts.get(key);
    if (entry) entry.value += n;
    else this.counts.set(key, { labels: labels(), value: n });
  }

  observeOn(counter: ObservableCounter): void {
    counter.addCallback((result) => {
      for (const { labels, value } of this.counts.values()) result.observe(value, labels);
    });
  }
}

/** A histogram's identity: what `GET /metrics` shows of it. */
export interface HistogramDescriptor {
  name: string;
  description: string;
  unit: string;
  /** Upper bounds of the buckets (each inclusive), ascending; a last bucket takes the rest. */
  boundaries: readonly number[];
}

/** One label set's observations of a {@link HistogramTally}, cumulative since `startMs`. */
export interface HistogramSeries {
  labels: Attributes;
  /** Observations per bucket: `counts[i]` those ≤ `boundaries[i]` and above the bound before. */
  counts: number[];
  count: number;
  sum: number;
  min: number;
  max: number;
  /** When its first observation was recorded (Unix ms). */
  startMs: number;
}

/**
 * A histogram by label set, kept here and handed to the metric readers at collection (see
 * `tallyProducer` in `@weft/telemetry/setup`): a record costs a map lookup and a bucket search
 * (~0.1 µs), where the SDK's `Histogram.record` hashes the attributes of every call (sorting
 * their keys and serialising them: ~1-3 µs, the largest part of the metrics interceptor's cost
 * per action call).
 */
export class HistogramTally {
  private readonly byKey = new Map<string, HistogramSeries>();

  constructor(readonly descriptor: HistogramDescriptor) {}

  /** Records `value` in the series of `key` (`labels` builds its labels, the first time only). */
  record(key: string, labels: () => Attributes, value: number): void {
    let series = this.byKey.get(key);
    if (series === undefined) {
      series = {
        labels: labels(),
        counts: new Array<number>(this.descriptor.boundaries.length + 1).fill(0),
        count: 0,
        sum: 0,
        min: Infinity,
        max: -Infinity,
        startMs: Date.now(),
      };
      this.byKey.set(key, series);
    }
    const { boundaries } = this.descriptor;
    let bucket = 0;
    while (bucket < boundaries.length && value > boundaries[bucket]!) bucket++;
    series.counts[bucket]!++;
    series.count++;
    series.sum += value;
    if (value < series.min) series.min = value;
    if (value > series.max) series.max = value;
  }

  /** Every series so far (read them, do not change them). */
  series(): Iterable<HistogramSeries> {
    return this.byKey.values();
  }
}

/**
 * weft's instruments on an OpenTelemetry meter (docs/observability.md#metrics). Labels are
 * bounded: plugin, action, workflow names, statuses and error codes, never ids. The counters
 * are counted in a map here and observed at collection, and the duration histogram is a
 * {@link HistogramTally}: a call costs map lookups, not the SDK's attribute hashing.
 */
export class WeftMetrics {
  /** Counts and times every action call (each attempt), and the retries: for the run's chain. */
  readonly interceptor: RunInterceptor;
  private readonly executions = new Tally();
  private readonly webhooks = new Tally();
  private readonly registry = new Tally();
  private readonly retention = new Tally();
  private readonly agentCost = new Tally();
  private readonly agentTokens = new Tally();
  private eventLoop: IntervalHistogram | undefined;

  /**
   * `durations`: where the duration of each action call goes (`weft_action_duration_seconds`,
   * {@link ACTION_DURATIONS}); its readers must take it as a metric producer.
   */
  constructor(
    private readonly meter: Meter,
    durations: HistogramTally,
  ) {
    const actions = new Tally();
    const retries = new Tally();
    actions.observeOn(
      meter.createObservableCounter('weft_action_executions_total', {
        description: 'Action calls (every attempt), by plugin, action and status.',
      }),
    );
    retries.observeOn(
      meter.createObservableCounter('weft_step_retries_total', {
        description: 'Attempts of action steps after the first one.',
      }),
    );
    this.executions.observeOn(
      meter.createObservableCounter('weft_executions_total', {
        description: 'Executions ended, by workflow and status.',
      }),
    );
    this.webhooks.observeOn(
      meter.createObservableCounter('weft_webhook_requests_total', {
        description: 'Requests to /hooks/*, by outcome (accepted, refused) and refusal reason.',
      }),
    );
    this.registry.observeOn(
      meter.createObservableCounter('weft_registry_requests_total', {
        description: 'Registry API requests, by route pattern and HTTP status.',
      }),
    );
    this.retention.observeOn(
      meter.createObservableCounter('weft_retention_deleted_total', {
        description: 'Rows retention deleted, by kind (executions, steps, events, audit_entries).',
      }),
    );
    this.agentCost.observeOn(
      meter.createObservableCounter('weft_agent_cost_usd_total', {
        description:
          "USD agent steps' live model calls cost (at the agents' pricing), by workflow and owner.",
      }),
    );
    this.agentTokens.observeOn(
      meter.createObservableCounter('weft_agent_tokens_total', {
        description:
          "Model tokens of agent steps' live model calls, by workflow, owner and kind (input, output).",
      }),
    );
    this.interceptor = {
      name: 'metrics',
      invoke(call, next) {
        const started = performance.now();
        const plugin = pluginName(call.target);
        const action = call.action;
        if (call.attempt > 1) retries.add(`${plugin}\n${action}`, () => ({ plugin, action }));
        return next(call).then(
          (result) => {
            const key = `${plugin}\n${action}`;
            const labels = () => ({ plugin, action, status: 'success' });
            actions.add(key, labels);
            durations.record(key, labels, (performance.now() - started) / 1000);
            return result;
          },
          (error: unknown) => {
            const code = errorCodeOf(error);
            const key = `${plugin}\n${action}\n${code}`;
            const labels = () => ({ plugin, action, status: 'failed', code });
            actions.add(key, labels);
            durations.record(key, labels, (performance.now() - started) / 1000);
            throw error;
          },
        );
      },
    };
  }

  /** Counts an ended execution. */
  executionEnded(workflow: string, status: string): void {
    this.executions.add(`${workflow}\n${status}`, () => ({ workflow, status }));
  }

  /**
   * Counts what a live model call of an agent step used: its tokens (`kind` input and output)
   * and, when its agent has pricing, its cost.
   */
  agentSpend(spend: {
    workflow: string;
    owner: string;
    inputTokens: number;
    outputTokens: number;
    costUsd: number | undefined;
  }): void {
    const { workflow, owner } = spend;
    const key = `${workflow}\n${owner}`;
    if (spend.costUsd !== undefined && spend.costUsd > 0) {
      this.agentCost.add(key, () => ({ workflow, owner }), spend.costUsd);
    }
    for (const [kind, n] of [
      ['input', spend.inputTokens],
      ['output', spend.outputTokens],
    ] as const) {
      if (n > 0) this.agentTokens.add(`${key}\n${kind}`, () => ({ workflow, owner, kind }), n);
    }
  }

  /** Counts a webhook request: `accepted` (reason `none`) or `refused` with its reason. */
  webhookRequest(outcome: string, reason: string): void {
    this.webhooks.add(`${outcome}\n${reason}`, () => ({ outcome, reason }));
  }

  /** Counts `n` rows of `kind` that retention deleted. */
  retentionDeleted(kind: string, n: number): void {
    this.retention.add(kind, () => ({ kind }), n);
  }

  /** Counts a registry request by its route pattern (`/plugins/:slug`, never the URL). */
  registryRequest(route: string, status: number): void {
    this.registry.add(`${route}\n${status}`, () => ({ route, status: String(status) }));
  }

  /**
   * Registers the process metrics (read at collection): `process_cpu_seconds_total`,
   * `process_resident_memory_bytes`, `nodejs_heap_used_bytes`, `process_start_time_seconds`
   * and `nodejs_eventloop_lag_seconds` (mean delay of the event loop since the last
   * collection, sampled every {@link LAG_SAMPLE_MS} ms by `monitorEventLoopDelay`). Once per
   * meter.
   */
  observeProcess(): void {
    if (this.eventLoop) return;
    const loop = monitorEventLoopDelay({ resolution: LAG_SAMPLE_MS });
    loop.enable();
    this.eventLoop = loop;
    const started = Date.now() / 1000 - process.uptime();
    this.meter
      .createObservableCounter('process_cpu_seconds_total', {
        description: 'User and system CPU time of the process, in seconds.',
      })
      .addCallback((result) => {
        const { user, system } = process.cpuUsage();
        result.observe((user + system) / 1e6);
      });
    this.meter
      .createObservableGauge('process_resident_memory_bytes', {
        description: 'Resident memory of the process, in bytes.',
      })
      .addCallback((result) => result.observe(process.memoryUsage.rss()));
    this.meter
      .createObservableGauge('nodejs_heap_used_bytes', {
        description: 'V8 heap in use, in bytes.',
      })
      .addCallback((result) => result.observe(process.memoryUsage().heapUsed));
    this.meter
      .createObservableGauge('process_start_time_seconds', {
        description: 'When the process started, in Unix seconds.',
      })
      .addCallback((result) => result.observe(started));
    this.meter
      .createObservableGauge('nodejs_eventloop_lag_seconds', {
        description: 'Mean event loop delay since the last collection, in seconds.',
      })
      .addCallback((result) => {
        // The histogram holds the time between samples: the delay is what exceeds the period.
        const mean = loop.count > 0 ? (loop.mean - LAG_SAMPLE_MS * 1e6) / 1e9 : 0;
        loop.reset();
        result.observe(Number.isFinite(mean) ? Math.max(0, mean) : 0);
      });
  }

  /** Stops the event loop sampling of {@link observeProcess}. */
  close(): void {
    this.eventLoop?.disable();
    this.eventLoop = undefined;
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
