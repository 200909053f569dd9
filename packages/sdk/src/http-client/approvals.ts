import { ValidationError } from '@weft/core';
import {
  asRecord,
  checkId,
  queryString,
  toExecutionPage,
  type ExecutionPage,
} from './executions.js';
import type { HttpApi } from './http-api.js';
import type { ExecutionRecord } from './wire.js';

/** Longest comment the server keeps with a decision. */
export const MAX_DECISION_COMMENT = 2_000;

/** Paging of {@link listApprovals}. */
export interface ListApprovalsOptions {
  /** Page size, 1 to 100. Default 20. */
  limit?: number;
  /** The `next_cursor` of the page before. */
  cursor?: string;
  signal?: AbortSignal;
}

/** What goes with an approval or a rejection. */
export interface DecisionOptions {
  /** Why (at most 2,000 characters); kept with the decision and in the audit log. */
  comment?: string;
  /**
   * Approve only, an execution waiting for an agent's tool call (`waiting_for.kind:
   * tool_call`): the arguments the tool runs with instead of the model's (checked by the server
   * against the tool's input schema, audited as an edit).
   */
  arguments?: Record<string, unknown>;
  signal?: AbortSignal;
}

/** A decision on an execution that waits for approval. */
export type ApprovalVerdict = 'approve' | 'reject';

/**
 * `GET /approvals?limit&cursor`: one page of the executions that wait for an approval the
 * caller may give (it holds one of their `approvers` roles and did not start them), newest
 * first. Each record's `waiting_for` has `approvers`, `since`, `expires_at` and `requested_by`.
 */
export async function listApprovals(
  api: HttpApi,
  options: ListApprovalsOptions = {},
): Promise<ExecutionPage> {
  const query = queryString({ limit: options.limit, cursor: options.cursor });
  const answer = await api.call('GET', `/approvals${query}`, {
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return toExecutionPage(answer.json);
}

/**
 * `POST /workflows/executions/{id}/approve` or `.../reject` with `{comment?}`: the execution's
 * record after the decision — `pending` once approved (it runs on, on whichever server claims
 * it), `canceled` once rejected. Throws the server's error: `FORBIDDEN` (`details.reason`
 * `not_approver` or `own_run`), `CONFLICT` when it no longer waits (decided, canceled or
 * expired), `NOT_FOUND` for an unknown id.
 */
export async function decideExecution(
  api: HttpApi,
  id: string,
  verdict: ApprovalVerdict,
  options: DecisionOptions = {},
): Promise<ExecutionRecord> {
  checkId(id);
  const comment = options.comment;
  if (
    comment !== undefined &&
    (typeof comment !== 'string' || comment.length > MAX_DECISION_COMMENT)
  ) {
    throw new ValidationError(
      `comment must be a string of at most ${MAX_DECISION_COMMENT} characters`,
      { field: 'comment', constraint: 'maxLength' },
    );
  }
  const answer = await api.call(
    'POST',
    `/workflows/executions/${encodeURIComponent(id)}/${verdict}`,
    {
      body: {
        ...(comment !== undefined ? { comment } : {}),
        ...(options.arguments !== undefined ? { arguments: options.arguments } : {}),
      },
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
  return asRecord(answer.json);
}

/** Approves an execution that waits for approval: its record, `pending` as it runs on. */
export function approveExecution(
  api: HttpApi,
  id: string,
  options: DecisionOptions = {},
): Promise<ExecutionRecord> {
  return decideExecution(api, id, 'approve', options);
}

/** Rejects an execution that waits for approval: its record, ended `canceled`. */
export function rejectExecution(
  api: HttpApi,
  id: string,
  options: DecisionOptions = {},
): Promise<ExecutionRecord> {
  return decideExecution(api, id, 'reject', options);
}
