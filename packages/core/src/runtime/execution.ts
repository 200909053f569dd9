import { Type, type Static } from '@weft/core/typebox';
import { ConnectorRuntime } from '../workflow/runtime.js';
import { EXECUTION_STATUSES } from './status.js';

/** Execution statuses on the wire (the same list as {@link EXECUTION_STATUSES}). */
export const ExecutionStatusSchema = Type.Union(
  EXECUTION_STATUSES.map((status) => Type.Literal(status)),
  {
    description:
      'pending → running → completed | failed | canceled; waiting: may not run yet (an approval); pending once resumed, failed (TIMEOUT) at its deadline',
  },
);

/**
 * What a `waiting` execution waits for (on the record while it waits): `kind` (`approval`,
 * later `event`), since when, until when (null: no deadline), and fields of that kind such as
 * `approvers`.
 */
export const WaitingFor = Type.Object(
  {
    kind: Type.String({ minLength: 1, description: 'approval, event, …' }),
    since: Type.String({ format: 'date-time', description: 'When it began to wait' }),
    expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When it fails with TIMEOUT unless resumed first; null: never',
    }),
  },
  {
    additionalProperties: true,
    description:
      'What a waiting execution waits for: its kind, since and until when, and fields of its kind such as `approvers`',
  },
);
/** {@link WaitingFor} with its kind-specific fields. */
export type WaitingFor = Static<typeof WaitingFor> & { [field: string]: unknown };

/** Body of `POST /workflows/executions`. */
export const StartExecutionRequest = Type.Object(
  {
    workflow: Type.Optional(
      Type.Union([Type.String({ minLength: 1 }), Type.Object({}, { additionalProperties: true })], {
        description:
          'The workflow file (YAML or JSON text, or a parsed object with `workflows`), or one workflow definition',
      }),
    ),
    workflow_file: Type.Optional(
      Type.String({ minLength: 1, description: 'Workflow file text (YAML or JSON)' }),
    ),
    workflow_name: Type.Optional(
      Type.String({ minLength: 1, description: 'Which workflow of the file to run' }),
    ),
    inputs: Type.Optional(Type.Object({}, { additionalProperties: true })),
    callback_url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description: 'Receives the callback (docs/runtime.md#callbacks)',
      }),
    ),
    mode: Type.Optional(Type.Literal('cloud', { description: 'Only `cloud` runs on the server' })),
    idempotency_key: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: 'The same key from the same API key returns the same execution',
      }),
    ),
  },
  { additionalProperties: false },
);
export type StartExecutionRequest = Static<typeof StartExecutionRequest>;

/** Body of `POST /workflows/executions/{id}/rerun` (optional: without it the whole workflow runs again). */
export const RerunExecutionRequest = Type.Object(
  {
    from: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description:
          "Resume from this top-level step (or `failed`: the step the original failed at): the steps before it are taken from the original's journal, not run again",
      }),
    ),
  },
  { additionalProperties: false },
);
export type RerunExecutionRequest = Static<typeof RerunExecutionRequest>;

/** State of the completion callback, on the record. */
export const CallbackInfo = Type.Object({
  url: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  last_status: Type.Union([Type.Integer(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  webhook_id: Type.String(),
  delivered_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export type CallbackInfo = Static<typeof CallbackInfo>;

/** `resumed_from` on the record of an execution rerun from a step. */
export const ResumedFromSchema = Type.Object(
  {
    execution_id: Type.String({
      description: 'The execution whose journal gave the earlier steps',
    }),
    step: Type.String({ description: 'The first step that ran again' }),
  },
  {
    description:
      'Set on an execution rerun from a step: the steps before `step` were taken from the journal of `execution_id`, not run again',
  },
);

/** An execution record (docs/runtime.md#execution-record, docs/design.md#executions). */
export const ExecutionRecord = Type.Object(
  {
    execution_id: Type.String(),
    status: ExecutionStatusSchema,
    poll_url: Type.String({ description: '/workflows/executions/<execution_id>' }),
    workflow: Type.String(),
    workflow_version: Type.String(),
    mode: Type.String(),
    trigger: Type.String({ description: 'api, webhook, schedule or event' }),
    inputs: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description:
            'The inputs it was started with; the value of an input declared `secret: true` is `***`',
        },
      ),
    ),
    created_at: Type.String({ format: 'date-time' }),
    started_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    canceled_at: Type.Optional(Type.String({ format: 'date-time' })),
    waiting_for: Type.Optional(WaitingFor),
    result: Type.Optional(
      Type.Object({
        outputs: Type.Object({}, { additionalProperties: true }),
        steps: Type.Object({}, { additionalProperties: true }),
      }),
    ),
    error: Type.Optional(Type.Ref('ErrorObject')),
    callback: Type.Optional(CallbackInfo),
    resumed_from: Type.Optional(ResumedFromSchema),
    stream_protocol: Type.Optional(
      Type.Union([Type.Literal('sse'), Type.Literal('websocket')], {
        description:
          "The workflow's execution.streaming.protocol, when it sets one: the transport its clients prefer for the events",
      }),
    ),
  },
  { $id: 'ExecutionRecord' },
);
export type ExecutionRecord = Static<typeof ExecutionRecord> & {
  error?: { status: 'error'; code: string; message: string; details: Record<string, unknown> };
};

/** One page of `GET /workflows/executions`. */
export const ExecutionPage = Type.Object({
  executions: Type.Array(Type.Ref('ExecutionRecord')),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as `cursor` for the next page; null on the last one',
  }),
});

/** What started an execution, as `trigger` on its record and as a listing filter. */
export const EXECUTION_TRIGGER_TYPES = ['api', 'manual', 'webhook', 'schedule', 'event'] as const;

/** {@link EXECUTION_TRIGGER_TYPES} on the wire. */
export const ExecutionTriggerTypeSchema = Type.Union(
  EXECUTION_TRIGGER_TYPES.map((type) => Type.Literal(type)),
  { description: 'What started it: api, manual, webhook, schedule or event' },
);

/** Query of `GET /workflows/executions`. */
export const ExecutionListQuery = Type.Object(
  {
    status: Type.Optional(ExecutionStatusSchema),
    workflow: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    trigger: Type.Optional(ExecutionTriggerTypeSchema),
    from: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Only executions created at or after this time (RFC 3339)',
      }),
    ),
    to: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Only executions created before this time (RFC 3339)',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
  },
  { additionalProperties: false },
);
export type ExecutionListQuery = Static<typeof ExecutionListQuery>;

/** Callback body (docs/runtime.md#callbacks). */
export interface CallbackBody {
  execution_id: string;
  status: string;
  result: { outputs: Record<string, unknown>; steps?: Record<string, unknown> };
  error?: unknown;
}

/** Body of `POST /actions/execute`: one action, run on the server (hybrid mode). */
export const ExecuteActionRequest = Type.Object(
  {
    plugin: Type.String({ minLength: 1, maxLength: 214, description: 'Plugin slug' }),
    version: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    action: Type.String({ minLength: 1, maxLength: 128 }),
    input: Type.Optional(Type.Object({}, { additionalProperties: true })),
    // The calling step's runtime block (docs/workflow-language.md#connector-runtime).
    runtime: Type.Optional(ConnectorRuntime),
  },
  { additionalProperties: false },
);
export type ExecuteActionRequest = Static<typeof ExecuteActionRequest>;

/** Usage of the caller's keys (`GET /usage`). */
export const UsageReport = Type.Object({
  owner: Type.String(),
  since: Type.String({ description: 'YYYY-MM-DD' }),
  totals: Type.Object({
    executions: Type.Integer(),
    action_calls: Type.Integer(),
    duration_ms: Type.Integer(),
  }),
  days: Type.Array(
    Type.Object({
      date: Type.String(),
      key_id: Type.String(),
      executions: Type.Integer(),
      action_calls: Type.Integer(),
      duration_ms: Type.Integer(),
    }),
  ),
});
export type UsageReport = Static<typeof UsageReport>;
