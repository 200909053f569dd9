/**
 * The ajv settings of every weft HTTP app (Fastify's `ajv.customOptions`): unknown body fields
 * are refused, not silently dropped (`removeAdditional: false`); query strings and path
 * parameters are still coerced to the types their schemas name; schema defaults are filled in;
 * validation stops at the first failure, which the error object names. Test harnesses that build
 * their own Fastify instance use these too, so they validate as the server does.
 */
export const AJV_OPTIONS = {
  removeAdditional: false,
  coerceTypes: true,
  useDefaults: true,
  allErrors: false,
} as const;
