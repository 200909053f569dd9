import { Type, type Static } from '@weft/core/typebox';

const Quantity = (description: string, example: string) =>
  Type.String({
    pattern: '^[0-9]+(\\.[0-9]+)?\\s*[A-Za-z/]*$',
    maxLength: 32,
    description: `${description}, e.g. "${example}"`,
    'x-expected': `a quantity with an optional unit, e.g. "${example}"`,
  });

/** Connector runtime configuration (docs/workflow-language.md#connector-runtime), limited by the limits (docs/protocol.md#limits). */
export const ConnectorRuntime = Type.Object(
  {
    resources: Type.Optional(
      Type.Object(
        {
          cpu: Type.Optional(Quantity('Cores (default 0.5, at most 4)', '0.5')),
          memory: Type.Optional(Quantity('Memory (default 512MB, at most 4GB)', '512MB')),
          timeout: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 600,
              description: 'Seconds (default 120, at most 600)',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    storage: Type.Optional(
      Type.Object(
        {
          maxSize: Type.Optional(Quantity('Largest scratch storage', '1GB')),
          ephemeral: Type.Optional(Type.Boolean({ description: 'Delete after execution' })),
        },
        { additionalProperties: false },
      ),
    ),
    network: Type.Optional(
      Type.Object(
        {
          bandwidth: Type.Optional(
            Quantity('Network bandwidth (default 10MB/s, at most 100MB/s)', '10MB/s'),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    limits: Type.Optional(
      Type.Object(
        {
          maxFileDescriptors: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_048_576 })),
          maxProcesses: Type.Optional(Type.Integer({ minimum: 1, maximum: 65_536 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    additionalProperties: false,
    description: 'Connector runtime configuration (docs/workflow-language.md#connector-runtime)',
  },
);
export type ConnectorRuntime = Static<typeof ConnectorRuntime>;

/** Stream event types (docs/protocol.md#stream-events). */
export const EVENT_TYPES = [
  'step.started',
  'step.progress',
  'step.completed',
  'step.failed',
  'workflow.completed',
] as const;

/** Workflow-level execution settings; `streaming` is described in docs/workflow-language.md#streaming. */
export const ExecutionSettings = Type.Object(
  {
    streaming: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean({ description: 'Stream events of runs' })),
          protocol: Type.Optional(
            Type.Union([Type.Literal('sse'), Type.Literal('websocket')], {
              description: 'Transport of the event stream (default sse)',
            }),
          ),
          events: Type.Optional(
            Type.Array(Type.Union(EVENT_TYPES.map((e) => Type.Literal(e))), {
              uniqueItems: true,
              description: 'Event types to send (default all)',
            }),
          ),
        },
        {
          additionalProperties: false,
          description: 'Streaming configuration (docs/workflow-language.md#streaming)',
        },
      ),
    ),
    retention_days: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 36_500,
        description:
          'Days weft server keeps the ended executions of this workflow (overrides WEFT_RETENTION_DAYS; docs/runtime.md#retention)',
      }),
    ),
  },
  { additionalProperties: false, description: 'Execution settings' },
);
export type ExecutionSettings = Static<typeof ExecutionSettings>;
