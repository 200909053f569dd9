export { startTelemetry, type Telemetry } from './start.js';
export { telemetryOptionsFromEnv, type TelemetryEnv } from './env.js';
export type { MetricJson, MetricPointJson, MetricsJson } from './json.js';
export type {
  MetricsOptions,
  OtlpProtocol,
  SamplerSetting,
  TelemetryOptions,
  TracesOptions,
} from './options.js';
export { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
