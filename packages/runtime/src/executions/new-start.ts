import { createHash } from 'node:crypto';
import {
  timeOrderedId,
  type EventRow,
  type ExecutionLease,
  type ExecutionTrigger,
  type IdempotencyClaim,
  type JournalRow,
  type Principal,
  type StartedBy,
  type StoredExecution,
} from '@weft/core';
import type { WorkflowDefinition } from '@weft/engine';
import type { RunSpan, TraceCarrier, WorkflowTracing } from '@weft/telemetry';
import { requestedData, waitEvents, waitingFor, type WaitRequest } from '../waits/wait-events.js';
import type { ExecutableWorkflow } from './definition.js';
import type { ResumePlan } from './resume-from.js';

/** What {@link Runtime.startExecution} needs: a validated workflow and who runs it. */
export interface ExecutionRequest {
  workflow: WorkflowDefinition;
  /** Workflows its subworkflow steps may call (the rest of its file, deployed workflows). */
  library?: readonly WorkflowDefinition[];
  inputs?: Readonly<Record<string, unknown>>;
  /** What started it: `{type: 'api'}`, `{type: 'webhook', payload}`, `{type: 'event', event}`… */
  trigger: ExecutionTrigger;
  /**
   * Who starts it: the caller, or for a trigger's run the deployer. Its `owner` may see the
   * execution, its `keyId` scopes idempotency keys and usage, and its roles and permissions are
   * checked against the workflow's `authorization` (docs/authorization.md#checks).
   */
  principal: Principal;
  callbackUrl?: string;
  /** Idempotency key of the request, with a fingerprint of what was asked. */
  idempotency?: { key: string; fingerprint: string };
  /**
   * Start it `waiting` (an approval before its first step) instead of `pending`: it is stored
   * with its `waiting_for` and a `<kind>.requested` event, and runs only once resumed.
   */
  wait?: WaitRequest;
  /** The trace context of the request that starts it: its run span joins that trace. */
  trace?: TraceCarrier;
  /**
   * The caller waits for its end (`Prefer: wait`): run here, its record may be committed without
   * waiting for the disk, as its end's commit makes it durable; a caller answered before the end
   * flushes the store first (`ExecutionsStore.flush`).
   */
  awaitsEnd?: boolean;
  /** The id to give it (a new time-ordered id when unset). */
  executionId?: string;
  /**
   * Resume another execution (a rerun from a step): stored with `resumed_from` and its journal
   * seeded with `journal`, so its run takes those steps back instead of running them.
   */
  resume?: ResumePlan;
}

/** A checked new execution: its record as answered and as stored, and how it runs here. */
export interface NewStart {
  execution: StoredExecution;
  stored: StoredExecution;
  lease: ExecutionLease | undefined;
  claim: IdempotencyClaim | undefined;
  executable: ExecutableWorkflow;
  wait: WaitRequest | undefined;
  /** Its first events, stored with it (a wait's `<kind>.requested`). */
  events: EventRow[];
  /** Its first journaled steps, stored with it (those a resumed execution takes back). */
  journal: JournalRow[];
  /**
   * The span of its first run (traced runs), child of the request's trace context; its own
   * context is stored with the execution (`trace_context`), so a run resumed later or elsewhere
   * stays in its trace. End it when the run does not happen here.
   */
  runSpan: RunSpan | undefined;
}

/**
 * The record of a new execution of a checked request, created at `now` (ms), and how it will
 * run here: under `lease` when given (stored already running), else pending, or waiting.
 */
export function newStart(
  request: ExecutionRequest,
  inputs: Record<string, unknown>,
  now: number,
  lease: ExecutionLease | undefined,
  tracing?: WorkflowTracing,
): NewStart {
  const { workflow } = request;
  const library = request.library ?? [workflow];
  const { principal } = request;
  const keyId = principal.keyId;
  const execution: StoredExecution = {
    id: request.executionId ?? timeOrderedId(),
    owner: principal.owner,
    key_id: keyId,
    started_by: startedBy(principal),
    workflow: workflow.name,
    workflow_version: workflow.version,
    mode: 'cloud',
    status: request.wait ? 'waiting' : 'pending',
    definition: { workflow, library: library.length === 1 ? [] : [...library] },
    inputs,
    trigger: request.trigger,
    callback_url: request.callbackUrl ?? null,
    created_at: '',
    started_at: null,
    finished_at: null,
    canceled_at: null,
    result: null,
    error: null,
    callback: null,
  };
  if (request.resume) execution.resumed_from = request.resume.resumedFrom;
  const runSpan = tracing?.startRun(
    {
      executionId: execution.id,
      workflow: workflow.name,
      version: workflow.version,
      mode: 'cloud',
    },
    request.trace,
  );
  if (runSpan?.carrier) execution.trace_context = runSpan.carrier;
  const start: NewStart = {
    execution,
    // With a free run slot here, the execution is stored already running under this worker's
    // lease (one write instead of an insert and a claim); the caller still gets it pending.
    stored: lease && !request.wait ? { ...execution, status: 'running' } : execution,
    lease: request.wait ? undefined : lease,
    claim: request.idempotency
      ? {
          key_id: keyId,
          key: request.idempotency.key,
          fingerprint: request.idempotency.fingerprint,
        }
      : undefined,
    executable: { workflow, library: [...library] },
    wait: request.wait,
    events: [],
    journal: request.resume?.journal ?? [],
    runSpan,
  };
  stampStart(start, now);
  return start;
}

/** Dates a new execution `now` (ms): created (and started, under a lease; waiting since). */
export function stampStart(start: NewStart, now: number): void {
  const at = new Date(now).toISOString();
  const { execution, stored, wait } = start;
  execution.created_at = stored.created_at = at;
  if (start.lease) stored.started_at = at;
  if (!wait) return;
  const waiting = waitingFor(wait, now);
  execution.waiting_for = stored.waiting_for = waiting;
  start.events = waitEvents(execution, wait.kind, 'requested', requestedData(waiting), at, 1);
}

/** The fingerprint of a start request, to tell a replay from a different request. */
export function fingerprintOf(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

/** What an execution keeps of the principal that started it. */
export function startedBy(principal: Principal): StartedBy {
  return {
    kind: principal.kind,
    subject: principal.subject,
    name: principal.name,
    roles: principal.roles,
    permissions: principal.permissions,
  };
}
