/**
 * Span names and attribute keys weft sets (docs/observability.md#spans). Attribute values are
 * names, ids, counts and error codes only: never inputs, outputs, headers or error messages, so
 * a secret cannot reach a span.
 */
export const ATTR = {
  executionId: 'weft.execution_id',
  workflow: 'weft.workflow',
  workflowVersion: 'weft.workflow.version',
  executionMode: 'weft.execution_mode',
  runStatus: 'weft.execution.status',
  resumed: 'weft.execution.resumed',
  stepId: 'weft.step.id',
  stepKind: 'weft.step.kind',
  stepStatus: 'weft.step.status',
  stepAttempts: 'weft.step.attempts',
  attempt: 'weft.action.attempt',
  item: 'weft.action.item',
  plugin: 'weft.plugin',
  action: 'weft.action',
  errorCode: 'weft.error.code',
  agentTurn: 'weft.agent.turn',
} as const;

/** The instrumentation scope of weft's spans and metrics. */
export const SCOPE = '@weft/telemetry';
