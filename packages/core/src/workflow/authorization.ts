import { Type, type Static } from '@weft/core/typebox';

/** Pattern of permissions: `<resource>:<verb>`. */
export const PERMISSION_PATTERN = '^[a-z][a-z0-9_.*-]*:[a-z*][a-z0-9_*-]*$';

const Permission = Type.String({
  pattern: PERMISSION_PATTERN,
  maxLength: 128,
  description: 'A permission in <resource>:<verb> form, e.g. reports:read',
  'x-expected': 'a permission in <resource>:<verb> form (lowercase), e.g. reports:read',
});

const Role = Type.String({ minLength: 1, maxLength: 128 });

/** Authorization block of a workflow (docs/workflow-language.md#authorization). */
export const Authorization = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean({ description: 'Check authorization before running' })),
    roles: Type.Optional(
      Type.Array(Role, {
        maxItems: 100,
        description: 'The user needs at least one of these roles',
      }),
    ),
    permissions: Type.Optional(
      Type.Array(Permission, {
        maxItems: 100,
        description: 'The user needs all these permissions',
      }),
    ),
    approval: Type.Optional(
      Type.Object(
        {
          required: Type.Optional(
            Type.Boolean({ description: 'Whether a run waits for approval' }),
          ),
          approvers: Type.Optional(
            Type.Array(Role, { maxItems: 100, description: 'Roles allowed to approve' }),
          ),
          timeout: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 2_592_000,
              description: 'Seconds to wait for approval',
            }),
          ),
        },
        { additionalProperties: false, description: 'Approval before running' },
      ),
    ),
  },
  { additionalProperties: false, description: 'Who may run the workflow' },
);
export type Authorization = Static<typeof Authorization>;

/** Step-level authorization (docs/workflow-language.md#steps): extra permissions checked for one step. */
export const StepAuthorization = Type.Object(
  {
    permissions: Type.Array(Permission, {
      maxItems: 100,
      description: 'Permissions needed to run this step',
    }),
  },
  { additionalProperties: false, description: 'Additional step-level authorization' },
);
