import type { EventRow, StoredExecution } from '@weft/core';

/** One execution as the in-memory store keeps it: the record and what stays inside the store. */
export interface Row {
  execution: StoredExecution;
  /** The worker holding its lease, or null. */
  leaseOwner: string | null;
  /** Epoch ms its lease runs until (0: none). */
  leaseUntil: number;
  /** Epoch ms of the deadline of its wait (`waiting_for.expires_at`), or null. */
  waitUntil: number | null;
}

/** The journal of one execution: its finished steps by path and its events by sequence number. */
export interface Log {
  steps: Map<string, string>;
  events: Map<number, EventRow>;
}

/**
 * A copy of a value as it comes back from a database's JSON columns: nothing shared with the
 * caller, `undefined` properties gone.
 */
export function copyOf<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
