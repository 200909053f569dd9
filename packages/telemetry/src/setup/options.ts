import type { SpanExporter } from '@opentelemetry/sdk-trace-base';

/** OTLP over HTTP, as JSON or protobuf (`OTEL_EXPORTER_OTLP_PROTOCOL`). */
export type OtlpProtocol = 'http/json' | 'http/protobuf';

/** Which traces are kept (`OTEL_TRACES_SAMPLER` / `_ARG`). */
export interface SamplerSetting {
  /** `ratio`: keep `ratio` of the traces (by trace id); `always_on`, `always_off`. */
  kind: 'always_on' | 'always_off' | 'ratio';
  /** 0..1, for `ratio`. */
  ratio?: number;
  /** Follow the parent's decision when there is a parent (default true). */
  parentBased?: boolean;
}

/** Where and how spans go. */
export interface TracesOptions {
  /** The OTLP traces URL (`…/v1/traces`); ignored when `exporter` is given. */
  url?: string;
  protocol?: OtlpProtocol;
  /** Headers of the export requests (`OTEL_EXPORTER_OTLP_HEADERS`). */
  headers?: Record<string, string>;
  /** Default: every trace (`always_on`, parent-based). */
  sampler?: SamplerSetting;
  /** An exporter of your own (in-memory for tests, another backend) instead of OTLP. */
  exporter?: SpanExporter;
  /** Send spans one by one as they end instead of in batches (tests). Default false. */
  simple?: boolean;
}

/** Where metrics go besides the Prometheus endpoint. */
export interface MetricsOptions {
  /** The OTLP metrics URL (`…/v1/metrics`): the instruments are also pushed there. */
  url?: string;
  protocol?: OtlpProtocol;
  headers?: Record<string, string>;
  /** How often they are pushed, in ms. Default 60,000. */
  intervalMs?: number;
}

/** Options of {@link startTelemetry}. */
export interface TelemetryOptions {
  /** `service.name` of the spans and metrics (`OTEL_SERVICE_NAME`). */
  serviceName: string;
  /** Traces; undefined: no tracing at all (no provider, no interceptor). */
  traces?: TracesOptions;
  /** Metrics pushed over OTLP; they are always readable as Prometheus text. */
  metrics?: MetricsOptions;
  /**
   * How long `shutdown` waits for the collector to take the last spans and metrics before it
   * drops them, in ms. Default 1,000.
   */
  shutdownTimeoutMs?: number;
  /**
   * Register the providers, the W3C propagator and the async context manager globally (the
   * OpenTelemetry API's), so that plugin code's own spans and `continueTrace` use them. Default
   * true; skipped for what another SDK registered first.
   */
  global?: boolean;
  /**
   * Register the async context manager (`AsyncLocalStorage`), so that a span can be made the
   * active one across `await`s: what in-process code needs (the SDK's local runs and their
   * handlers, a connector service's handlers and their own spans). Default true. The server
   * turns it off: its runs pass trace context explicitly (`ActionCall.trace`), and once a
   * context is made active anywhere (the batch span processor does, around every export) every
   * promise of the process pays an async hook, ~7% of the server's CPU per execution.
   */
  activeSpans?: boolean;
}
