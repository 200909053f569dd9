import { Type, TypeCompiler, type Static, type TSchema, type TypeCheck } from '@weft/core/typebox';
import { PLUGIN_SLUG_PATTERN, ValidationError } from '@weft/core';

/** ISO 8601 UTC timestamp, as `Date.prototype.toISOString` writes it (seconds fraction optional). */
const ISO_UTC_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?Z$';

const Timestamp = (description: string) =>
  Type.String({ pattern: ISO_UTC_PATTERN, description: `${description} (ISO 8601 UTC)` });

/**
 * The broker task message (docs/protocol.md#broker-tasks), published to `platform.workflow.<plugin_slug>`.
 * Exactly the spec's fields; the step path and idempotency key travel as headers
 * ({@link TASK_HEADERS}).
 */
export const TaskMessage = Type.Object(
  {
    workflow_id: Type.String({ minLength: 1, maxLength: 256, description: 'Execution id' }),
    plugin: Type.String({
      pattern: PLUGIN_SLUG_PATTERN,
      maxLength: 64,
      description: 'Plugin slug',
    }),
    action: Type.String({ minLength: 1, maxLength: 256, description: 'Action name' }),
    input: Type.Record(Type.String(), Type.Unknown(), { description: 'Action input' }),
    timestamp: Timestamp('When the task was published'),
  },
  { additionalProperties: false },
);
export type TaskMessage = Static<typeof TaskMessage>;

/** The error object (docs/protocol.md#error-object) inside a failed result. */
const ResultError = Type.Object({
  status: Type.Literal('error'),
  code: Type.String({ minLength: 1 }),
  message: Type.String(),
  details: Type.Record(Type.String(), Type.Unknown()),
});

/**
 * A task's result, published to `platform.workflow.results` (docs/protocol.md#broker-tasks; this is weft's). Keyed by `workflow_id` and `step`; `idempotency_key` is
 * `<workflow_id>/<step>` when the task carried one.
 */
export const TaskResultMessage = Type.Object(
  {
    workflow_id: Type.String({ minLength: 1, maxLength: 256 }),
    step: Type.Union([Type.String({ minLength: 1, maxLength: 1024 }), Type.Null()], {
      description: 'Step path from the task header, null when the task carried none',
    }),
    idempotency_key: Type.Union([Type.String({ minLength: 1, maxLength: 1024 }), Type.Null()]),
    plugin: Type.String({ pattern: PLUGIN_SLUG_PATTERN, maxLength: 64 }),
    action: Type.String({ minLength: 1, maxLength: 256 }),
    status: Type.Union([Type.Literal('success'), Type.Literal('error')]),
    output: Type.Optional(Type.Unknown({ description: 'The action output, when success' })),
    error: Type.Optional(ResultError),
    timestamp: Timestamp('When the result was published'),
  },
  { additionalProperties: false },
);
export type TaskResultMessage = Static<typeof TaskResultMessage>;

/** Subject every task result is published to. */
export const RESULTS_SUBJECT = 'platform.workflow.results';

/** Headers of a task message beside its body (docs/protocol.md#broker-tasks). */
export const TASK_HEADERS = {
  /** The step path the task runs (`fetch`, `loop[2].call`). */
  step: 'weft-step',
  /** `<execution_id>/<step path>`: services drop duplicates by it (docs/design.md#scale-out). */
  idempotencyKey: 'idempotency-key',
  /** The step's `runtime` block as JSON text, when it has one (a weft extension, docs/protocol.md#broker-tasks). */
  runtime: 'weft-runtime',
} as const;

/**
 * The topic of a plugin's tasks: `platform.workflow.<plugin_slug>`. The slug `results` is
 * refused because its topic would be the results topic.
 */
export function taskSubject(pluginSlug: string): string {
  if (!new RegExp(PLUGIN_SLUG_PATTERN).test(pluginSlug) || pluginSlug.length > 64) {
    throw new ValidationError(`plugin slug ${JSON.stringify(pluginSlug)} is not a valid slug`, {
      field: 'plugin',
      constraint: 'lower-case letters and digits with single - or _ between them, at most 64',
    });
  }
  if (`platform.workflow.${pluginSlug}` === RESULTS_SUBJECT) {
    throw new ValidationError(
      'plugin slug "results" cannot take tasks: its topic is the results topic',
      {
        field: 'plugin',
        constraint: 'not "results"',
      },
    );
  }
  return `platform.workflow.${pluginSlug}`;
}

const checks = new Map<TSchema, TypeCheck<TSchema>>();

/** The compiled checker of a schema (compiled once: parsing is on the hot path of every task). */
function checkerOf<T extends TSchema>(schema: T): TypeCheck<T> {
  let check = checks.get(schema);
  if (check === undefined) {
    check = TypeCompiler.Compile(schema);
    checks.set(schema, check);
  }
  return check as TypeCheck<T>;
}

function parseAs<T extends TSchema>(schema: T, what: string, text: string): Static<T> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ValidationError(`${what} is not JSON: ${(error as Error).message}`, {
      field: '',
      constraint: 'a JSON object',
    });
  }
  const check = checkerOf(schema);
  if (check.Check(value)) return value;
  const first = check.Errors(value).First();
  if (first !== undefined) {
    const field = first.path.replace(/^\//, '').replaceAll('/', '.');
    throw new ValidationError(`${what}: ${field || 'message'} ${first.message.toLowerCase()}`, {
      field,
      constraint: first.message,
    });
  }
  return value;
}

/** Parses a task message (docs/protocol.md#broker-tasks); throws a `ValidationError` naming the first bad field. */
export function parseTaskMessage(text: string): TaskMessage {
  return parseAs(TaskMessage, 'task message', text);
}

/** Parses a task result message; throws a `ValidationError` naming the first bad field. */
export function parseTaskResultMessage(text: string): TaskResultMessage {
  return parseAs(TaskResultMessage, 'task result', text);
}
