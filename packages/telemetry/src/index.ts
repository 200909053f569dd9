export { ATTR, SCOPE } from './attributes.js';
export { errorCodeOf, failSpan } from './errors.js';
export {
  GEN_AI,
  modelTurnSpans,
  type ModelTurnInfo,
  type ModelTurnResult,
  type ModelTurnSpans,
} from './genai.js';
export { pluginName, tracingInterceptor } from './interceptor.js';
export {
  ACTION_DURATIONS,
  DURATION_BUCKETS_SECONDS,
  HistogramTally,
  WeftMetrics,
  type HistogramDescriptor,
  type HistogramSeries,
  type ObservedSources,
} from './metrics.js';
export {
  extractTraceContext,
  injectTraceContext,
  inSpanOf,
  TRACE_HEADERS,
  traceCarrierOf,
  traceFields,
  type TraceCarrier,
} from './propagation.js';
export { continueTrace } from './server-span.js';
export { RunSpan, WorkflowTracing, type RunEnd, type RunSpanInfo } from './tracing.js';
