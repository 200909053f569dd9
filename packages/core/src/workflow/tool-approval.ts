import { Type, type Static } from '@weft/core/typebox';

/** Longest wait for a tool call's approval: 30 days, as a workflow approval. */
export const MAX_TOOL_APPROVAL_TIMEOUT = 2_592_000;

/**
 * The approval a tool call of an agent waits for (docs/agents.md#tool-approvals): on an agent
 * definition's `tools` entry (object form), or on an agent step's `tool_approvals`.
 */
export const ToolApproval = Type.Object(
  {
    approvers: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
      minItems: 1,
      maxItems: 100,
      description: 'Roles allowed to approve the call',
      'x-expected': 'at least one approver role',
    }),
    timeout: Type.Integer({
      minimum: 1,
      maximum: MAX_TOOL_APPROVAL_TIMEOUT,
      description: 'Seconds to wait for a decision; then the call is rejected as expired',
      'x-expected': `a whole number of seconds from 1 to ${MAX_TOOL_APPROVAL_TIMEOUT}`,
    }),
    on_reject: Type.Optional(
      Type.Union([Type.Literal('continue'), Type.Literal('fail')], {
        description:
          'continue (default): the model is told the call was rejected and goes on; fail: the step fails',
        'x-expected': 'continue or fail',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'The call waits for an approver before the tool runs',
  },
);
export type ToolApproval = Static<typeof ToolApproval>;

/**
 * An agent step's `tool_approvals`: the approval of tools by the name the model knows them by.
 * It adds or replaces an approval; it cannot remove the agent's own.
 */
export const ToolApprovals = Type.Record(
  Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
  ToolApproval,
  {
    maxProperties: 128,
    description:
      "Approvals of the agent's tools by tool name (agent steps): adds to or replaces the agent's",
  },
);
export type ToolApprovals = Static<typeof ToolApprovals>;
