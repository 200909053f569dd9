import { CanceledError, type JournalRow, type StoredExecution, type WaitingFor } from '@weft/core';
import type {
  JournaledStep,
  ToolApprovalGate,
  ToolApprovalRequest,
  ToolDecision,
} from '@weft/engine';
import { waitingFor, type WaitRequest } from './wait-events.js';

/** The `waiting_for.kind` of an execution waiting for a decision on an agent's tool call. */
export const TOOL_CALL_WAIT = 'tool_call';

/** Prefix of the journal path of an agent step attempt's saved state. */
const SAVED_PREFIX = '~agent:';

/** The journal row of an agent step attempt's saved state (not a step: never restored as one). */
export interface SavedAgentRow {
  path: string;
  /** The path of the step it belongs to. */
  partial_of: string;
  /** The agent attempt's idempotency key. */
  key: string;
  state: unknown;
  /** What its turns cost so far: counted by the `maxCost` ledger until the step ends. */
  usage?: { cost_usd: number };
}

/** The journal path of the saved state of agent step attempt `key`. */
export function savedPath(key: string): string {
  return `${SAVED_PREFIX}${key}`;
}

/** Whether a journaled row is an agent step's saved state (not a finished step). */
export function isSavedAgentRow(step: { path: string }): boolean {
  return step.path.startsWith(SAVED_PREFIX);
}

/** The wait of a tool call: what `waiting_for` shows (the arguments already masked). */
export function toolCallWait(
  request: ToolApprovalRequest,
  execution: StoredExecution,
): WaitRequest {
  const by = execution.started_by;
  return {
    kind: TOOL_CALL_WAIT,
    timeoutMs: request.timeoutSeconds * 1000,
    details: {
      step: request.step,
      tool: request.tool,
      arguments: request.arguments,
      approvers: [...request.approvers],
      ...(by ? { requested_by: { kind: by.kind, subject: by.subject, name: by.name } } : {}),
      on_reject: request.onReject,
      call_id: request.callId,
      attempt_key: request.key,
      input_schema: request.inputSchema,
    },
  };
}

/** What a run needs to wait for a tool call's decision. */
export interface ToolCallWaitPort {
  /** The claimed record (its `waiting_for` holds the decision it was resumed with, if any). */
  execution: StoredExecution;
  /** The journal it was claimed with (saved agent states among its rows). */
  journal: readonly JournaledStep[];
  /** Saves `row`, makes the execution wait for `waiting`, and stops the run here. */
  suspend(row: JournalRow, waiting: WaitingFor): Promise<void>;
  now(): number;
}

/**
 * The tool approval gate of one server run: the decision the execution was resumed with, or
 * else the execution's wait for one (its agent step's state saved in the journal first).
 */
export function serverToolApprovals(port: ToolCallWaitPort): ToolApprovalGate {
  const saved = new Map<string, unknown>();
  for (const step of port.journal) {
    if (isSavedAgentRow(step)) {
      const row = step as unknown as SavedAgentRow;
      saved.set(row.key, row.state);
    }
  }
  let waiting: Promise<void> | undefined;
  return {
    saved: (key) => saved.get(key),
    decide: async (request, state) => {
      const decided = decisionOf(port.execution.waiting_for, request);
      if (decided) return decided;
      // One wait at a time: a second call asking in the same turn waits with the run.
      waiting ??= (async () => {
        const snapshot = (await state()) as { costUsd?: number };
        const row: SavedAgentRow = {
          path: savedPath(request.key),
          partial_of: request.step,
          key: request.key,
          state: snapshot,
          ...(typeof snapshot.costUsd === 'number' && snapshot.costUsd > 0
            ? { usage: { cost_usd: snapshot.costUsd } }
            : {}),
        };
        const wait = toolCallWait(request, port.execution);
        await port.suspend(
          { path: row.path, json: JSON.stringify(row) },
          waitingFor(wait, port.now()),
        );
      })();
      await waiting;
      throw new CanceledError(
        `the execution waits for a decision on tool call ${request.tool} of step "${request.step}"`,
        { reason: 'waiting', tool: request.tool, canceled_at: new Date(port.now()).toISOString() },
      );
    },
  };
}

/** The decision `waiting` (as the execution was resumed) holds for `request`, if any. */
function decisionOf(
  waiting: WaitingFor | undefined,
  request: ToolApprovalRequest,
): ToolDecision | undefined {
  if (waiting?.kind !== TOOL_CALL_WAIT) return undefined;
  if (waiting['attempt_key'] !== request.key || waiting['call_id'] !== request.callId) {
    return undefined;
  }
  const decision = waiting['decision'] as ToolDecision | undefined;
  return decision?.verdict === 'approve' || decision?.verdict === 'reject' ? decision : undefined;
}
