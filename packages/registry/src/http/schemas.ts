import { Type } from '@weft/core/typebox';

/** Error answers of a route, by status: one definition, in core. */
export { errorResponses } from '@weft/core';

/** `{slug}` path parameter. */
export const SlugParams = Type.Object({
  slug: Type.String({ maxLength: 256, description: 'Plugin slug' }),
});

/** `{slug}/{version}` path parameters. */
export const SlugVersionParams = Type.Object({
  slug: Type.String({ maxLength: 256, description: 'Plugin slug' }),
  version: Type.String({ maxLength: 256, description: 'Semantic version' }),
});

/** `?dry_run=` of publish and update (checked by the route). */
export const DryRunQuery = Type.Object({
  dry_run: Type.Optional(
    Type.String({
      description: 'true: validate only, store nothing',
      enum: ['true', 'false', '1', '0', ''],
    }),
  ),
});

/** Bearer security requirement, for the OpenAPI document. */
export const bearer = [{ bearerAuth: [] as string[] }];
