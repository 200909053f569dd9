import { Type } from '@weft/core/typebox';
import { ERROR_CODES } from './codes.js';

/**
 * The error object (docs/protocol.md#error-object) as a route schema (`$id: ErrorObject`): one definition for every HTTP
 * package, so the schemas their servers add are the same.
 */
export const ErrorObjectSchema = Type.Object(
  {
    status: Type.Literal('error'),
    code: Type.Union(ERROR_CODES.map((c) => Type.Literal(c))),
    message: Type.String(),
    details: Type.Record(Type.String(), Type.Unknown()),
  },
  { $id: 'ErrorObject', description: 'Error object (docs/protocol.md#error-object)' },
);

/**
 * The one reference to {@link ErrorObjectSchema} every error answer uses: the same object, so a
 * response serializer compiled for it serves every route and every app of the process
 * (`rememberingSerializers` in @weft/http).
 */
const ERROR_OBJECT_REF = Type.Ref('ErrorObject');

/** Error answers of a route, by status (references to {@link ErrorObjectSchema}). */
export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, ERROR_OBJECT_REF]));
