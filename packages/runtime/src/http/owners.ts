import type { Principal } from '@weft/core';

/** Whose executions a caller reads: its owner's; an admin key every owner's (undefined). */
export function readableOwner(principal: Principal): string | undefined {
  return principal.admin ? undefined : principal.owner;
}
