import type { Principal } from '@weft/core';

/** One verified token: who it is, until when, and under which key set it was checked. */
interface Entry {
  principal: Principal;
  /** `exp` plus the clock tolerance, ms since the epoch. */
  validUntilMs: number;
  /** Generation of the key set the signature was checked against (see {@link VerifiedTokens}). */
  keys: number;
}

/**
 * Tokens already verified, remembered until they expire: a client sends the same access token
 * with every request, and checking an RS256 signature costs ~150 µs here (ES256 more), a lookup
 * ~1 µs. Keyed by the whole token (never a part of it, which another token could share), at most
 * `size` entries (the oldest go first). An entry counts only while the key set it was checked
 * against is still the current one (`keys`: a number that grows with every fetch of the set), so
 * a key removed from the provider's set stops its tokens as soon as the set is fetched again, as
 * it would without this cache.
 */
export class VerifiedTokens {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly size: number) {}

  /** The principal of a token verified before, if it is still valid under `keys`. */
  get(token: string, nowMs: number, keys: number): Principal | undefined {
    const entry = this.entries.get(token);
    if (entry === undefined) return undefined;
    if (entry.validUntilMs <= nowMs || entry.keys !== keys) {
      this.entries.delete(token);
      return undefined;
    }
    return entry.principal;
  }

  /** Remembers a verified token. */
  set(token: string, principal: Principal, validUntilMs: number, keys: number): void {
    if (this.size <= 0) return;
    if (this.entries.size >= this.size && !this.entries.has(token)) {
      this.entries.delete(this.entries.keys().next().value!);
    }
    this.entries.set(token, { principal, validUntilMs, keys });
  }

  /** Forgets every token. */
  clear(): void {
    this.entries.clear();
  }
}
