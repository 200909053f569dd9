import type { StreamEvent } from '../ports/events.js';
import type { ExecutionSettings } from './runtime.js';

/** A workflow's `execution.streaming` block (docs/workflow-language.md#streaming). */
export type StreamingSettings = NonNullable<ExecutionSettings['streaming']>;

/**
 * Which events of a run its workflow lets through (docs/workflow-language.md#streaming):
 * `false` when `enabled: false` (none), `true` when every type goes, else the set of the
 * `events` listed. The one rule for local runs (the engine) and `weft server` alike.
 */
export function streamedTypes(
  streaming: StreamingSettings | undefined,
): boolean | ReadonlySet<string> {
  if (streaming?.enabled === false) return false;
  if (!streaming?.events) return true;
  return new Set<string>(streaming.events);
}

/**
 * `sink` wrapped so that it only receives the events `streaming` lets through; undefined when
 * it lets none through (or there is no sink), so that a run builds no events at all.
 */
export function filterEvents(
  streaming: StreamingSettings | undefined,
  sink: ((event: StreamEvent) => void) | undefined,
): ((event: StreamEvent) => void) | undefined {
  if (!sink) return undefined;
  const types = streamedTypes(streaming);
  if (types === true) return sink;
  if (types === false) return undefined;
  return (event) => {
    if (types.has(event.type)) sink(event);
  };
}
