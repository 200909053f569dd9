import { Type } from '@weft/core/typebox';

/** `{id}` of the execution routes. */
export const ExecutionParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 128, description: 'execution_id' }),
});

/** The error responses every authenticated route may give. */
export const ERROR_RESPONSES = {
  400: Type.Ref('ErrorObject'),
  401: Type.Ref('ErrorObject'),
  404: Type.Ref('ErrorObject'),
} as const;

/** Header of `POST /workflows/executions`. */
export const PreferHeader = Type.Object({
  prefer: Type.Optional(
    Type.String({ description: 'wait=N: answer 200 with the ended record if it ends within N s' }),
  ),
});

/** Reads `wait=N` from a `Prefer` header (RFC 7240), capped at `max`; 0 when absent. */
export function preferredWait(header: string | string[] | undefined, max: number): number {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  const match = /(?:^|[,;\s])wait\s*=\s*"?(\d{1,6})"?/i.exec(text);
  return match ? Math.min(Number(match[1]), max) : 0;
}
