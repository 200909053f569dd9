import type { ExecutionRecord } from '@weft/sdk/client';

/** The fields of a `tool_call` wait (docs/agents.md#tool-approvals), as far as they are there. */
export interface ToolCallWait {
  step: string;
  tool: string;
  /** The model's arguments (secret values masked by the server). */
  arguments: Record<string, unknown>;
  onReject: string;
}

/** The tool call a waiting run waits for; undefined for other waits. */
export function toolCallOf(record: ExecutionRecord): ToolCallWait | undefined {
  const waiting = record.waiting_for as Record<string, unknown> | undefined;
  if (waiting?.['kind'] !== 'tool_call') return undefined;
  const args = waiting['arguments'];
  return {
    step: String(waiting['step'] ?? ''),
    tool: String(waiting['tool'] ?? ''),
    arguments: typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {},
    onReject: String(waiting['on_reject'] ?? 'continue'),
  };
}

/**
 * What an agent's tool call that waits for approval would do: step, tool and (`showArguments`,
 * for those who cannot decide it: the decision form shows them otherwise) its arguments.
 */
export function ToolCallSummary({
  call,
  showArguments,
}: {
  call: ToolCallWait;
  showArguments: boolean;
}) {
  return (
    <div class="tool-call">
      <p>
        Agent step <code>{call.step}</code> wants to call the tool <code>{call.tool}</code>
        {showArguments ? ' with:' : '.'}
      </p>
      {showArguments ? <pre>{JSON.stringify(call.arguments, null, 2)}</pre> : null}
      <p class="muted">
        Approve: the tool runs{showArguments ? '' : ' with the arguments below, edited or not'}.
        Reject:{' '}
        {call.onReject === 'fail'
          ? 'the agent step fails.'
          : 'the model is told who rejected it and why, and goes on.'}
      </p>
    </div>
  );
}
