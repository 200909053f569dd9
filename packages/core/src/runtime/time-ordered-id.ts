import { randomFillSync } from 'node:crypto';

const pool = Buffer.alloc(16 * 256);
let next = pool.length;

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Ids made later
 * sort later, so rows keyed by them are appended to an index's last page instead of landing on
 * a random one (a B-tree insert with a random key dirties a page of its own: most of the WAL
 * written per execution on SQLite, and index bloat on PostgreSQL).
 */
export function timeOrderedId(now: number = Date.now()): string {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  const bytes = pool.subarray(next, next + 16);
  next += 16;
  bytes.writeUIntBE(Math.max(0, Math.min(now, 0xffffffffffff)), 0, 6);
  bytes[6] = 0x70 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
