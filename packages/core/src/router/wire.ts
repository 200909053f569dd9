import { Type, type Static } from '@weft/core/typebox';
import { ConnectorRuntime } from '../workflow/runtime.js';
import { ACTION_PATTERN, SLUG_PATTERN } from '../workflow/steps.js';

const Timestamp = (description: string) =>
  Type.String({ format: 'date-time', description: `${description} (ISO 8601 UTC)` });

/** Shape of a router `instance_id` (and of `metadata.region`). */
export const INSTANCE_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$';

/** Health of a routed instance: the status (docs/protocol.md#health) of its last check, `unknown` before the first. */
export const INSTANCE_HEALTH = ['unknown', 'ok', 'degraded', 'unhealthy'] as const;
/** One of {@link INSTANCE_HEALTH}. */
export type InstanceHealth = (typeof INSTANCE_HEALTH)[number];

/**
 * The router registration record (docs/router.md#registration). The router checks more than the schema says:
 * `version` must be semver, `url` and `health_check_url` absolute http(s) URLs whose hosts are
 * not link-local or metadata addresses.
 */
export const RouterRegistration = Type.Object(
  {
    plugin_slug: Type.String({ pattern: SLUG_PATTERN, description: 'Slug of the plugin served' }),
    version: Type.String({ minLength: 1, maxLength: 256, description: 'Semver of the plugin' }),
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'Base URL of the service' }),
    actions: Type.Array(Type.String({ pattern: ACTION_PATTERN }), {
      minItems: 1,
      maxItems: 1000,
      uniqueItems: true,
      description: 'Names of the actions served',
    }),
    health_check_url: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2048, description: 'Default {url}/healthz' }),
    ),
    metadata: Type.Optional(
      Type.Object(
        {
          instance_id: Type.Optional(
            Type.String({
              pattern: INSTANCE_ID_PATTERN,
              description: 'Default: derived from the url',
            }),
          ),
          region: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
        },
        { additionalProperties: Type.Unknown(), maxProperties: 64 },
      ),
    ),
  },
  {
    additionalProperties: false,
    description: 'Router registration record (docs/router.md#registration)',
  },
);
/** See {@link RouterRegistration}. */
export type RouterRegistration = Static<typeof RouterRegistration>;

/** Answer of `POST /register` (docs/router.md#registration): 201, or 200 when the instance re-registers. */
export const RegistrationResponse = Type.Object({
  status: Type.Literal('registered'),
  plugin_slug: Type.String(),
  instance_id: Type.String(),
  registered_at: Timestamp('First registration of this instance'),
});
/** See {@link RegistrationResponse}. */
export type RegistrationResponse = Static<typeof RegistrationResponse>;

/** Answer of `DELETE /register/{plugin_slug}/{instance_id}` (docs/design.md#router). */
export const DeregistrationResponse = Type.Object({
  status: Type.Literal('deregistered'),
  plugin_slug: Type.String(),
  instance_id: Type.String(),
  deregistered_at: Timestamp('When it left the routing table'),
});
/** See {@link DeregistrationResponse}. */
export type DeregistrationResponse = Static<typeof DeregistrationResponse>;

/** One instance of the routing table, as `GET /routes` shows it. */
export const RouteEntry = Type.Object({
  plugin_slug: Type.String(),
  instance_id: Type.String(),
  version: Type.String(),
  url: Type.String(),
  actions: Type.Array(Type.String()),
  health_check_url: Type.String(),
  region: Type.Union([Type.String(), Type.Null()]),
  registered_at: Timestamp('First registration'),
  health: Type.Union(INSTANCE_HEALTH.map((h) => Type.Literal(h))),
  last_check_at: Type.Union([Timestamp('Last health check'), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()], {
    description: 'Why the last check failed',
  }),
  consecutive_failures: Type.Integer(),
  in_flight: Type.Integer({ description: 'Calls this server replica has open to it' }),
});
/** See {@link RouteEntry}. */
export type RouteEntry = Static<typeof RouteEntry>;

/** Answer of `GET /routes`. */
export const RoutesResponse = Type.Object({
  instances: Type.Array(RouteEntry),
});
/** See {@link RoutesResponse}. */
export type RoutesResponse = Static<typeof RoutesResponse>;

/** The connector execute request (docs/protocol.md#action-calls). */
export const ExecuteRequest = Type.Object(
  {
    action: Type.String({
      minLength: 1,
      maxLength: 256,
      description: '<plugin>.<action> (on /{plugin_slug}/execute also just <action>)',
    }),
    input: Type.Record(Type.String(), Type.Unknown(), { description: 'Action parameters' }),
    // Weft extension: the calling step's runtime block, which overrides the connector's.
    runtime: Type.Optional(ConnectorRuntime),
  },
  {
    additionalProperties: false,
    description: 'Connector execute request (docs/protocol.md#action-calls)',
  },
);
/** See {@link ExecuteRequest}. */
export type ExecuteRequest = Static<typeof ExecuteRequest>;

/** The connector success response (docs/protocol.md#action-calls). */
export const ExecuteSuccess = Type.Object({
  status: Type.Literal('success'),
  data: Type.Record(Type.String(), Type.Unknown()),
});
/** See {@link ExecuteSuccess}. */
export type ExecuteSuccess = Static<typeof ExecuteSuccess>;
