import {
  context,
  createTraceState,
  propagation,
  ROOT_CONTEXT,
  trace,
  type Context,
  type SpanContext,
} from '@opentelemetry/api';

/** Headers that carry W3C trace context (`traceparent`, `tracestate`). */
export const TRACE_HEADERS = ['traceparent', 'tracestate'] as const;

/** The W3C trace context of a span, as headers (`tracestate` when there is one). */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

/**
 * Adds `traceparent` (and `tracestate`) of the active span to `headers` and returns them. Does
 * nothing when no span is active or no propagator is registered (tracing off): one lookup.
 */
export function injectTraceContext<T extends Record<string, string>>(
  headers: T,
  active: Context = context.active(),
): T {
  if (trace.getSpan(active) !== undefined) propagation.inject(active, headers);
  return headers;
}

/**
 * The W3C trace context of a span, written without the registered propagator (there may be
 * none): what tracing puts on `ActionCall.trace`.
 */
export function traceCarrierOfSpan(span: SpanContext): TraceCarrier {
  const flags = (span.traceFlags & 0xff).toString(16).padStart(2, '0');
  const traceparent = `00-${span.traceId}-${span.spanId}-${flags}`;
  const state = span.traceState?.serialize();
  return state ? { traceparent, tracestate: state } : { traceparent };
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The context whose parent is the span `carrier` names (from {@link traceCarrierOfSpan}); the
 * root context when there is none or it is malformed. Needs no registered propagator.
 */
export function contextOfCarrier(carrier: TraceCarrier | undefined): Context {
  const parts = carrier === undefined ? null : TRACEPARENT.exec(carrier.traceparent);
  if (parts === null) return ROOT_CONTEXT;
  const span: SpanContext = {
    traceId: parts[1]!,
    spanId: parts[2]!,
    traceFlags: Number.parseInt(parts[3]!, 16),
    isRemote: true,
  };
  if (carrier!.tracestate !== undefined) span.traceState = createTraceState(carrier!.tracestate);
  return trace.setSpanContext(ROOT_CONTEXT, span);
}

/**
 * Calls `fn` with the span `carrier` names as the active one, so that spans and HTTP calls made
 * in it (in-process handlers, a user's own instrumentation) nest under it.
 */
export function inSpanOf<T>(carrier: TraceCarrier, fn: () => T): T {
  return context.with(contextOfCarrier(carrier), fn);
}

/**
 * The context of a remote parent named by `traceparent`/`tracestate` in `headers` (HTTP request
 * headers, broker message headers); the root context when there is none or it is malformed.
 */
export function extractTraceContext(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): Context {
  if (headers['traceparent'] === undefined) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, headers);
}

/** `traceparent`/`tracestate` of `headers`, when a `traceparent` is there (to keep for later). */
export function traceCarrierOf(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): TraceCarrier | undefined {
  const parent = first(headers['traceparent']);
  if (parent === undefined || parent.length > 128) return undefined;
  const state = first(headers['tracestate']);
  return state === undefined || state.length > 512
    ? { traceparent: parent }
    : { traceparent: parent, tracestate: state };
}

/** The trace and span ids of the active span for log lines; empty when none is active. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getSpan(context.active());
  if (span === undefined) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

function first(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return typeof text === 'string' && text !== '' ? text : undefined;
}
