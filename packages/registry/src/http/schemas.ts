import { Type } from '@weft/core/typebox';
import { UpdateResponse } from '@weft/core';

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

/** One change between two versions (docs/registry.md#what-is-breaking). */
const VersionChange = Type.Object({
  action: Type.String({ description: 'Action name' }),
  path: Type.String({
    description:
      'Where: action (the action itself), input.properties.<name>, output.properties.<name>…',
  }),
  change: Type.String({
    description: 'What changed, e.g. removed, type narrowed: number → integer',
  }),
});

/** Answer of `PUT /plugins/{slug}`: with `?dry_run=true`, the diff against the published version. */
export const UpdateAnswer = Type.Composite([
  UpdateResponse,
  Type.Object({
    diff: Type.Optional(
      Type.Object(
        {
          against: Type.String({ description: 'The published version compared with' }),
          required_version: Type.String({
            description: 'The lowest version allowed: a major above `against` when anything breaks',
          }),
          breaks: Type.Array(VersionChange, { description: 'Changes that break callers' }),
          compatible: Type.Array(VersionChange, { description: 'Changes that do not' }),
        },
        {
          description:
            'Dry runs only: the definition compared with the highest stable version (absent when there is none)',
        },
      ),
    ),
  }),
]);
