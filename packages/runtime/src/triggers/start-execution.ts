import type { ExecutionRecord, Principal, TraceContext } from '@weft/core';
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
  /**
   * The key (`owner/name`) of the deployment whose trigger starts it: {@link createTriggers}
   * finds its owner and deployer by it. Unset for manual runs (the caller is known).
   */
  deployment?: string;
  inputs: Record<string, unknown>;
  trigger: TriggerInfo;
  /**
   * Owner of the execution. Manual runs set the caller's; webhooks, schedules and events leave
   * it out and {@link createTriggers} fills in the deployment's owner (the owner of the key that
   * deployed it).
   */
  owner?: string;
  /** Key id of the caller that asked for it (manual runs). */
  keyId?: string;
  /**
   * Who starts it, checked against the workflow's authorization: the caller of a manual run;
   * webhooks, schedules and events leave it out and {@link createTriggers} fills in the
   * deployer as recorded at deployment.
   */
  principal?: Principal;
  /** The trace context of the request that starts it (a webhook's `traceparent`): its run joins it. */
  trace?: TraceContext;
  /** The id to give the execution (a webhook notes it with the delivery before the start). */
  executionId?: string;
}

/**
 * A {@link StartRequest} whose owner is known, with the deployed workflows its subworkflow steps
 * call (`library`, the workflow first): what the server's start function receives.
 */
export type OwnedStartRequest = StartRequest & {
  owner: string;
  principal: Principal;
  library: readonly WorkflowDefinition[];
};

/**
 * The pending record an accepted start answers with: the runtime's execution record (docs/runtime.md#execution-record: `status: pending`, `execution_id`, `poll_url`, and the fields `POST
 * /workflows/executions` answers too) — one wire shape for every way of starting a run.
 */
export type PendingRecord = ExecutionRecord;

/**
 * The port through which triggers start executions; the server connects it to the runtime's
 * executions service. It resolves once the pending record is durable, and rejects with a
 * `WeftError` (e.g. `VALIDATION` for bad inputs) when nothing was started.
 */
export type StartExecution = (request: StartRequest) => Promise<PendingRecord>;

/** Authenticates an `Authorization` header (the platform's authenticator); rejects with `UNAUTHORIZED`. */
export type { Authenticate } from '@weft/identity';
