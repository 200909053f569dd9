import { GENESIS_HASH, type AuditEntry } from './entry.js';
import type { AuditDraft, AuditSeal } from './store.js';

/** The last stored entry's place in the chain. */
export interface AuditChainHead {
  seq: number | string;
  hash: string;
}

/**
 * Numbers and chains `drafts` after `head` (the last stored entry; none for an empty log), as
 * every {@link AuditStore} does inside its atomic append: each entry gets the next `seq`, the
 * hash before it as `prev_hash`, and `seal`'s hash. Only the fields of an entry are kept, so
 * that what is hashed is exactly what is stored; `owner` is stored beside, outside the hash.
 */
export function chainAuditDrafts(
  head: AuditChainHead | undefined,
  drafts: readonly AuditDraft[],
  seal: AuditSeal,
): AuditEntry[] {
  let seq = head ? Number(head.seq) : 0;
  let prev = head?.hash ?? GENESIS_HASH;
  return drafts.map((draft) => {
    const unsealed = {
      seq: ++seq,
      id: draft.id,
      at: draft.at,
      subject: draft.subject,
      credential: draft.credential,
      action: draft.action,
      workflow: draft.workflow,
      execution_id: draft.execution_id,
      step: draft.step,
      decision: draft.decision,
      reason: draft.reason,
      required: { roles: [...draft.required.roles], permissions: [...draft.required.permissions] },
      missing: { roles: [...draft.missing.roles], permissions: [...draft.missing.permissions] },
      prev_hash: prev,
    };
    prev = seal(unsealed);
    return { ...unsealed, hash: prev, owner: draft.owner };
  });
}
