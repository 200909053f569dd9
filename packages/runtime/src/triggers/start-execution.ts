import type { WorkflowDefinition } from '@weft/engine';

/** What started an execution, as the runtime records it and templates read it (`trigger.*`). */
export interface TriggerInfo {
  type: 'manual' | 'schedule' | 'webhook' | 'event';
  /** Webhook body (`trigger.payload`); schedule fires carry `{scheduled_at}`. */
  payload?: unknown;
  /** The event of an event trigger (`trigger.event`). */
  event?: unknown;
}

/** A request to start one execution of a deployed workflow. */
export interface StartRequest {
  workflow: WorkflowDefinition;
  inputs: Record<string, unknown>;
  trigger: TriggerInfo;
  /** Key id of the caller that asked for it (manual runs), for ownership of the record. */
  ownerKey?: string;
}

/** The §2.8 pending record an accepted start answers with. */
export interface PendingRecord {
  status: 'pending';
  execution_id: string;
  poll_url: string;
}

/**
 * The port through which triggers start executions; the server connects it to the runtime's
 * executions service. It resolves once the pending record is durable, and rejects with a
 * `WeftError` (e.g. `VALIDATION` for bad inputs) when nothing was started.
 */
export type StartExecution = (request: StartRequest) => Promise<PendingRecord>;

/** Authenticates an `Authorization` header (a weft API key); rejects with `UnauthorizedError`. */
export type Authenticate = (
  authorization: string | undefined,
) => Promise<{ keyId: string; owner: string }>;
