/** Stream event types (SPEC.md §6.1). */
export type StreamEventType =
  'step.started' | 'step.progress' | 'step.completed' | 'step.failed' | 'workflow.completed';

/** A stream event (SPEC.md §2.11), exactly as it goes on the wire. */
export interface StreamEvent {
  type: StreamEventType;
  /** ISO 8601 UTC. */
  timestamp: string;
  workflow_id: string;
  step_name: string;
  data: Record<string, unknown>;
}
