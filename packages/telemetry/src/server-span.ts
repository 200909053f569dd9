import { context, SpanKind, trace, type Attributes } from '@opentelemetry/api';
import { SCOPE } from './attributes.js';
import { errorCodeOf, failSpan } from './errors.js';
import { extractTraceContext } from './propagation.js';

/**
 * Runs `handle` in a span continuing the trace of `headers` (`traceparent`/`tracestate` of an
 * HTTP request or a broker message): kind SERVER (CONSUMER for a message), with the globally
 * registered tracer, and made active, so spans the handler makes nest under it. Without a
 * `traceparent` it just calls `handle`. `failed` tells whether a result is a failure (its code).
 */
export async function continueTrace<T>(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  name: string,
  options: {
    kind?: 'server' | 'consumer';
    attributes?: Attributes;
    failed?: (result: T) => string | undefined;
  },
  handle: () => Promise<T>,
): Promise<T> {
  if (headers['traceparent'] === undefined) return handle();
  const parent = extractTraceContext(headers);
  const span = trace.getTracer(SCOPE).startSpan(
    name,
    {
      kind: options.kind === 'consumer' ? SpanKind.CONSUMER : SpanKind.SERVER,
      ...(options.attributes ? { attributes: options.attributes } : {}),
    },
    parent,
  );
  try {
    const result = await context.with(trace.setSpan(parent, span), handle);
    const code = options.failed?.(result);
    if (code !== undefined) failSpan(span, code);
    return result;
  } catch (error) {
    failSpan(span, errorCodeOf(error));
    throw error;
  } finally {
    span.end();
  }
}
