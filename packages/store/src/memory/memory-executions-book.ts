import type { CallbackAttempt, UsageDelta, UsageRow } from '@weft/core';

/**
 * The bookkeeping of the in-memory executions store beside the records: callback attempts,
 * usage per key and day, and callback signing secrets.
 */
export class ExecutionsBook {
  /** Attempts by execution id, by attempt number. */
  private readonly attempts = new Map<string, Map<number, CallbackAttempt>>();
  /** Usage by `<key_id>\0<date>`, with the owner it was first added for. */
  private readonly days = new Map<string, UsageRow & { owner: string }>();
  private readonly secrets = new Map<string, string>();

  /** Records an attempt; a second record of one attempt number keeps the first. */
  recordCallback(id: string, attempt: CallbackAttempt): void {
    const attempts = this.attempts.get(id) ?? new Map<number, CallbackAttempt>();
    if (!attempts.has(attempt.attempt)) attempts.set(attempt.attempt, { ...attempt });
    this.attempts.set(id, attempts);
  }

  callbackAttempts(id: string): CallbackAttempt[] {
    return [...(this.attempts.get(id)?.values() ?? [])]
      .sort((a, b) => a.attempt - b.attempt)
      .map((attempt) => ({ ...attempt }));
  }

  /** Forgets the attempts of an execution deleted by retention. */
  forget(id: string): void {
    this.attempts.delete(id);
  }

  addUsage(keyId: string, owner: string, date: string, delta: UsageDelta): void {
    const key = `${keyId}\u0000${date}`;
    const day = this.days.get(key);
    if (!day) {
      this.days.set(key, { key_id: keyId, date, owner, ...delta });
      return;
    }
    day.executions += delta.executions;
    day.action_calls += delta.action_calls;
    day.duration_ms += delta.duration_ms;
  }

  /** An owner's usage since `sinceDate`, by day, then key. */
  usage(owner: string, sinceDate: string): UsageRow[] {
    return [...this.days.values()]
      .filter((day) => day.owner === owner && day.date >= sinceDate)
      .sort((a, b) => order(a.date, b.date) || order(a.key_id, b.key_id))
      .map(({ key_id, date, executions, action_calls, duration_ms }) => ({
        key_id,
        date,
        executions,
        action_calls,
        duration_ms,
      }));
  }

  signingSecret(keyId: string, generate: () => string): string {
    let secret = this.secrets.get(keyId);
    if (secret === undefined) {
      secret = generate();
      this.secrets.set(keyId, secret);
    }
    return secret;
  }
}

/** Orders text as the databases' `ORDER BY` does for ISO dates and ids. */
export function order(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
