/** What became of a wait (see `WaitingFor`): asked for, granted (resumed), rejected. */
export type WaitEventPhase = 'requested' | 'granted' | 'rejected';

/**
 * Events of a waiting execution, named after what it waits for: `approval.requested`,
 * `approval.granted`, `approval.rejected`, later `event.requested`…
 */
export type WaitEventType = `${string}.${WaitEventPhase}`;

/** Stream event types: those of docs/protocol.md#stream-events, and those of waits ({@link WaitEventType}). */
export type StreamEventType =
  | 'step.started'
  | 'step.progress'
  | 'step.completed'
  | 'step.failed'
  | 'workflow.completed'
  | WaitEventType;

/** The type of the event of a wait of `kind` reaching `phase` (`approval.requested`). */
export function waitEventType(kind: string, phase: WaitEventPhase): WaitEventType {
  return `${kind}.${phase}`;
}

/** A stream event (docs/protocol.md#stream-events), exactly as it goes on the wire. */
export interface StreamEvent {
  type: StreamEventType;
  /** ISO 8601 UTC. */
  timestamp: string;
  workflow_id: string;
  step_name: string;
  data: Record<string, unknown>;
}
