import { ValidationError } from '@weft/core';

/** An opaque listing cursor: the position of the last record of a page. */
export function encodeCursor(position: { created_at: string; id: string }): string {
  return Buffer.from(JSON.stringify([position.created_at, position.id])).toString('base64url');
}

/** Reads a cursor made by {@link encodeCursor}; throws `VALIDATION` on anything else. */
export function decodeCursor(cursor: string): { created_at: string; id: string } {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      typeof value[1] === 'string'
    ) {
      return { created_at: value[0], id: value[1] };
    }
  } catch {
    // falls through
  }
  throw new ValidationError('cursor is not one this server gave; pass next_cursor unchanged', {
    field: 'cursor',
    constraint: 'format',
  });
}
