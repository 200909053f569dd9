import { Type, type Static } from '@weft/core/typebox';
import { INSTANCE_ID_PATTERN, SLUG_PATTERN } from '@weft/core';

/** Error answers of a route, by status: one definition, in core. */
export { errorResponses } from '@weft/core';

/** `{plugin_slug}` path parameter. */
export const PluginParams = Type.Object({
  plugin_slug: Type.String({ pattern: SLUG_PATTERN, description: 'Plugin slug' }),
});
/** See {@link PluginParams}. */
export type PluginParams = Static<typeof PluginParams>;

/** `{plugin_slug}/{instance_id}` path parameters. */
export const InstanceParams = Type.Object({
  plugin_slug: Type.String({ pattern: SLUG_PATTERN, description: 'Plugin slug' }),
  instance_id: Type.String({ pattern: INSTANCE_ID_PATTERN, description: 'metadata.instance_id' }),
});
/** See {@link InstanceParams}. */
export type InstanceParams = Static<typeof InstanceParams>;

/**
 * Headers of an execute call, documented rather than validated by schema (the handler checks
 * `x-weft-timeout-ms`; skipping a schema pass keeps the hot path short).
 */
export const EXECUTE_HEADERS =
  'Headers: `Idempotency-Key` (passed on to the instance: <execution_id>/<step path>), ' +
  '`x-weft-timeout-ms` (a shorter deadline than the router default, in ms). ' +
  'The answer names the instance that served it in `x-weft-instance-id`.';

/** Registration routes take the router token (`WEFT_ROUTER_TOKEN`) as a bearer token. */
export const routerSecurity = [{ bearerAuth: [] as string[] }];
