import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { AuditEntry, UnsealedAuditEntry } from '@weft/core';

/**
 * The `hash` of an audit entry: SHA-256 (lower-case hex) of the RFC 8785 canonical JSON of the
 * entry without its `hash` and its `owner` (the workspace it is filed under, which moving a
 * workspace changes: see docs/authorization.md#workspaces). `prev_hash` and `seq` are inside
 * what is hashed, so an entry cannot be moved, and every entry vouches for the whole chain
 * before it.
 */
export function auditHash(entry: UnsealedAuditEntry | AuditEntry): string {
  const { hash: _hash, owner: _owner, ...unsealed } = entry as AuditEntry;
  return createHash('sha256')
    .update(canonicalize(unsealed) ?? '')
    .digest('hex');
}
