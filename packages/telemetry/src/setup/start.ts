import { context, metrics as metricsApi, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type IMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { SCOPE } from '../attributes.js';
import { ACTION_DURATIONS, HistogramTally, WeftMetrics } from '../metrics.js';
import { tallyProducer } from './tally-producer.js';
import { metricsJson, type MetricsJson } from './json.js';
import { WorkflowTracing } from '../tracing.js';
import type { SamplerSetting, TelemetryOptions, TracesOptions } from './options.js';

/** What {@link startTelemetry} set up. */
export interface Telemetry {
  /** Undefined when tracing is off: then install no tracing interceptor. */
  readonly tracing: WorkflowTracing | undefined;
  readonly metrics: WeftMetrics;
  /** The instruments now, in the Prometheus text format 0.0.4. */
  prometheus(): Promise<string>;
  /** The instruments now, as JSON (`GET /metrics` with `Accept: application/json`). */
  json(): Promise<MetricsJson>;
  /** Sends what is buffered (spans, metrics) now. */
  flush(): Promise<void>;
  /**
   * Flushes and stops; global registrations made by this one are undone. Waits at most
   * `shutdownTimeoutMs` for the collector: what it has not taken by then is dropped, and
   * `onDropped` gets one line saying so (a collector that is gone never delays a shutdown).
   */
  shutdown(onDropped?: (message: string) => void): Promise<void>;
}

/** The context manager is process-wide and harmless to keep: registered once. */
let contextManager: AsyncLocalStorageContextManager | undefined;

function registerContext(): void {
  if (contextManager) return;
  const manager = new AsyncLocalStorageContextManager().enable();
  if (context.setGlobalContextManager(manager)) contextManager = manager;
  else manager.disable();
}

/**
 * Starts OpenTelemetry for weft: a tracer provider exporting over OTLP/HTTP (JSON or protobuf)
 * or to `traces.exporter` when `traces` is given, and a meter provider read as Prometheus text
 * and pushed over OTLP when `metrics.url` is given. Without `traces` no tracer provider exists
 * and `tracing` is undefined.
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  const resource = resourceFromAttributes({ 'service.name': options.serviceName });
  const global = options.global ?? true;
  const undo: (() => void)[] = [];
  let tracerProvider: BasicTracerProvider | undefined;
  if (options.traces) {
    tracerProvider = new BasicTracerProvider({
      resource,
      sampler: samplerOf(options.traces.sampler),
      spanProcessors: [processorOf(options.traces)],
    });
    if (options.activeSpans ?? true) registerContext();
    if (global) {
      if (propagation.setGlobalPropagator(new W3CTraceContextPropagator()))
        undo.push(() => propagation.disable());
      if (trace.setGlobalTracerProvider(tracerProvider)) undo.push(() => trace.disable());
    }
  }
  // The action durations are tallied by weft and handed to each reader at collection.
  const durations = new HistogramTally(ACTION_DURATIONS);
  const metricProducers = [tallyProducer(resource, [durations])];
  const prometheus = new PrometheusExporter({ preventServerStart: true, metricProducers });
  const readers: IMetricReader[] = [prometheus];
  if (options.metrics?.url) {
    const config = { url: options.metrics.url, headers: options.metrics.headers ?? {} };
    readers.push(
      new PeriodicExportingMetricReader({
        exporter:
          options.metrics.protocol === 'http/json'
            ? new JsonMetricExporter(config)
            : new ProtoMetricExporter(config),
        exportIntervalMillis: options.metrics.intervalMs ?? 60_000,
        metricProducers,
      }),
    );
  }
  const meterProvider = new MeterProvider({ resource, readers });
  if (global && metricsApi.setGlobalMeterProvider(meterProvider))
    undo.push(() => metricsApi.disable());
  const serializer = new PrometheusSerializer(undefined, false, undefined, true, true);
  const metrics = new WeftMetrics(meterProvider.getMeter(SCOPE), durations);
  return {
    tracing: tracerProvider ? new WorkflowTracing(tracerProvider.getTracer(SCOPE)) : undefined,
    metrics,
    async prometheus() {
      const { resourceMetrics } = await prometheus.collect();
      return serializer.serialize(resourceMetrics);
    },
    async json() {
      return metricsJson((await prometheus.collect()).resourceMetrics);
    },
    async flush() {
      await Promise.all([tracerProvider?.forceFlush(), meterProvider.forceFlush()]);
    },
    async shutdown(onDropped) {
      metrics.close();
      const wait = options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
      const stopped = await settledWithin(
        Promise.allSettled([tracerProvider?.shutdown(), meterProvider.shutdown()]),
        wait,
      );
      if (!stopped)
        onDropped?.(
          `telemetry: the collector did not take the last spans and metrics within ${wait} ms: they were dropped`,
        );
      for (const step of undo) step();
    },
  };
}

/** How long a shutdown waits for the collector by default. */
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 1000;

/** Whether `work` settled within `ms` (the timer is cleared either way). */
async function settledWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

function processorOf(traces: TracesOptions) {
  // Without a URL the exporter falls back to OTEL_EXPORTER_OTLP_* and then localhost:4318.
  const headers = traces.headers ?? {};
  const config = traces.url === undefined ? { headers } : { url: traces.url, headers };
  const exporter: SpanExporter =
    traces.exporter ??
    (traces.protocol === 'http/json'
      ? new JsonTraceExporter(config)
      : new ProtoTraceExporter(config));
  return traces.simple ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter);
}

function samplerOf(setting: SamplerSetting | undefined): Sampler {
  const kind = setting?.kind ?? 'always_on';
  const root =
    kind === 'always_off'
      ? new AlwaysOffSampler()
      : kind === 'ratio' && (setting?.ratio ?? 1) < 1
        ? new TraceIdRatioBasedSampler(setting?.ratio ?? 1)
        : new AlwaysOnSampler();
  return setting?.parentBased === false ? root : new ParentBasedSampler({ root });
}
