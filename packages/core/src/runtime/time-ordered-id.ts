/** Random bytes for 256 ids, refilled in one call when used up. */
const pool = new Uint8Array(16 * 256);
let next = pool.length;

/** Two lowercase hex digits of every byte value. */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Ids made later
 * sort later, so rows keyed by them are appended to an index's last page instead of landing on
 * a random one (a B-tree insert with a random key dirties a page of its own: most of the WAL
 * written per execution on SQLite, and index bloat on PostgreSQL). Random bits come from Web
 * Crypto (`globalThis.crypto`, in Node 20 and browsers alike), so `@weft/core` stays
 * browser-safe.
 */
export function timeOrderedId(now: number = Date.now()): string {
  if (next === pool.length) {
    globalThis.crypto.getRandomValues(pool);
    next = 0;
  }
  const at = next;
  next += 16;
  const ms = Math.max(0, Math.min(now, 0xffffffffffff));
  // 48 bits do not fit a 32-bit bitwise operation: the high 16 and the low 32 apart.
  const high = Math.floor(ms / 0x100000000);
  const low = ms >>> 0;
  const p = pool;
  return (
    HEX[high >>> 8]! +
    HEX[high & 0xff]! +
    HEX[low >>> 24]! +
    HEX[(low >>> 16) & 0xff]! +
    '-' +
    HEX[(low >>> 8) & 0xff]! +
    HEX[low & 0xff]! +
    '-' +
    HEX[0x70 | (p[at + 6]! & 0x0f)]! +
    HEX[p[at + 7]!]! +
    '-' +
    HEX[0x80 | (p[at + 8]! & 0x3f)]! +
    HEX[p[at + 9]!]! +
    '-' +
    HEX[p[at + 10]!]! +
    HEX[p[at + 11]!]! +
    HEX[p[at + 12]!]! +
    HEX[p[at + 13]!]! +
    HEX[p[at + 14]!]! +
    HEX[p[at + 15]!]!
  );
}
