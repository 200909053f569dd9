import { Type, type Static } from '@weft/core/typebox';
import { Text } from './common.js';

/** `manual`: started by a person or an API call (docs/workflow-language.md#triggers). */
export const ManualTrigger = Type.Object(
  { type: Type.Literal('manual', { description: 'Started by hand or through the API' }) },
  { additionalProperties: false, description: 'Manual trigger' },
);

/** What a schedule does with fires missed while no server ran. */
export const CATCHUP_POLICIES = ['none', 'last', 'all'] as const;
/** One of {@link CATCHUP_POLICIES}. */
export type CatchupPolicy = (typeof CATCHUP_POLICIES)[number];

/** `schedule`: a cron expression in an IANA time zone (docs/workflow-language.md#triggers). */
export const ScheduleTrigger = Type.Object(
  {
    type: Type.Literal('schedule'),
    cron: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'Cron expression: 5 fields, or 6 with seconds first (e.g. "0 9 * * 1-5")',
    }),
    timezone: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'IANA time zone name such as Europe/Berlin (default UTC)',
      }),
    ),
    catchup: Type.Optional(
      Type.Union(
        CATCHUP_POLICIES.map((p) => Type.Literal(p)),
        {
          description:
            'Fires missed while no server ran: none (skip them), last (run the latest once; default), all (run each, bounded)',
        },
      ),
    ),
  },
  { additionalProperties: false, description: 'Schedule trigger' },
);

/** Webhook `auth` block (docs/workflow-language.md#triggers). */
export const WebhookAuth = Type.Object(
  {
    type: Type.Union([Type.Literal('hmac-sha256'), Type.Literal('bearer')], {
      description:
        'hmac-sha256: signature over the body (over <timestamp>.<body> with timestampHeader); bearer: token in Authorization',
    }),
    secret_name: Type.String({
      pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$',
      description: 'Name of the secret holding the key or token',
      'x-expected': 'a secret name: a letter or _, then letters, digits or _',
    }),
    header: Type.Optional(
      Type.String({
        pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$",
        description: 'Header carrying the signature (hmac-sha256), e.g. X-Hub-Signature-256',
        'x-expected': 'an HTTP header name',
      }),
    ),
  },
  { additionalProperties: false, description: 'How callers authenticate' },
);

/** Webhook `security` block (docs/workflow-language.md#triggers). */
export const WebhookSecurity = Type.Object(
  {
    ipAllowlist: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        maxItems: 1000,
        description: 'IP addresses or CIDR ranges allowed to call',
      }),
    ),
    replayWindow: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 86400,
        description: 'Seconds a request timestamp may lag (default 300 with timestampHeader)',
      }),
    ),
    timestampHeader: Type.Optional(
      Type.String({
        pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$",
        description:
          'Header carrying the request timestamp; hmac-sha256 signatures then cover <timestamp>.<body>',
        'x-expected': 'an HTTP header name',
      }),
    ),
    rateLimit: Type.Optional(
      Type.Object(
        {
          rpm: Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Requests per minute' }),
          burst: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 1_000_000,
              description: 'Extra requests allowed in a burst',
            }),
          ),
        },
        { additionalProperties: false, description: 'Rate limit' },
      ),
    ),
    maxPayloadSize: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 104_857_600,
        description: 'Largest accepted body, bytes',
      }),
    ),
  },
  { additionalProperties: false, description: 'Webhook security settings' },
);

/** `webhook`: an HTTP request to `/hooks` + `path` (docs/workflow-language.md#triggers). */
export const WebhookTrigger = Type.Object(
  {
    type: Type.Literal('webhook'),
    path: Type.String({
      pattern: "^/[A-Za-z0-9._~!$&'()*+,;=:@%/-]{0,255}$",
      description: 'Path under /hooks, starting with /',
      'x-expected': 'a URL path starting with /',
    }),
    method: Type.Optional(
      Type.Union(
        ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => Type.Literal(m)),
        { description: 'HTTP method (default POST)' },
      ),
    ),
    auth: Type.Optional(WebhookAuth),
    security: Type.Optional(WebhookSecurity),
  },
  { additionalProperties: false, description: 'Webhook trigger' },
);

/** Event sources of `event` triggers (docs/workflow-language.md#triggers), plus `nats` (NATS subjects). */
export const EVENT_SOURCES = ['kafka', 'sns', 'sqs', 'webhook', 'custom', 'nats'] as const;

/** `event`: a message from an event bus (docs/workflow-language.md#triggers). */
export const EventTrigger = Type.Object(
  {
    type: Type.Literal('event'),
    source: Type.Union(
      EVENT_SOURCES.map((s) => Type.Literal(s)),
      { description: 'Event bus the event comes from' },
    ),
    topic: Text('Topic or queue name', 512),
    filter: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'Field/value pairs an event must match',
      }),
    ),
  },
  { additionalProperties: false, description: 'Event trigger' },
);

/** Any trigger, discriminated by `type`. */
export const Trigger = Type.Union([ManualTrigger, ScheduleTrigger, WebhookTrigger, EventTrigger], {
  description: 'What starts the workflow',
});
export type Trigger = Static<typeof Trigger>;
export type TriggerType = Trigger['type'];
export type ScheduleTrigger = Static<typeof ScheduleTrigger>;
export type WebhookTrigger = Static<typeof WebhookTrigger>;
export type EventTrigger = Static<typeof EventTrigger>;
