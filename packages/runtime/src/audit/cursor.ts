import { ValidationError } from '@weft/core';

const PREFIX = 'a1.';

/** An opaque `GET /audit` cursor: the `seq` of the last entry of a page. */
export function encodeAuditCursor(seq: number): string {
  return PREFIX + Buffer.from(String(seq)).toString('base64url');
}

/** The `seq` in a cursor made by {@link encodeAuditCursor}; throws `VALIDATION` on anything else. */
export function decodeAuditCursor(cursor: string): number {
  if (cursor.startsWith(PREFIX)) {
    const text = Buffer.from(cursor.slice(PREFIX.length), 'base64url').toString('utf8');
    if (/^[1-9][0-9]{0,15}$/.test(text) && encodeAuditCursor(Number(text)) === cursor) {
      return Number(text);
    }
  }
  throw new ValidationError('cursor is not one this server gave; pass next_cursor unchanged', {
    field: 'cursor',
    constraint: 'format',
  });
}
