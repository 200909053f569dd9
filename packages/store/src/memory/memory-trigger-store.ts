import type { BucketSpec, DeliveryKey, FireKey, TokenResult, TriggerStore } from '@weft/core';
import { LocalBuckets } from '../token-bucket.js';

interface Delivery {
  expiresAtMs: number;
  executionId: string | undefined;
}

/** {@link TriggerStore} in process memory: one server, nothing kept across restarts. */
export class MemoryTriggerStore implements TriggerStore {
  readonly kind = 'memory';
  private readonly deliveries = new Map<string, Delivery>();
  private readonly buckets = new LocalBuckets();
  private readonly nextFires = new Map<string, number>();
  private readonly fires = new Map<string, number>();

  async rememberDelivery(scope: string, id: string, nowMs: number, expiresAtMs: number) {
    const key = `${scope}\u0000${id}`;
    const seen = this.deliveries.get(key);
    if (seen && seen.expiresAtMs > nowMs) return false;
    this.deliveries.set(key, { expiresAtMs, executionId: undefined });
    return true;
  }

  async rememberDeliveries(
    keys: readonly DeliveryKey[],
    nowMs: number,
    expiresAtMs: number,
    executionId: string | undefined,
  ): Promise<number> {
    const seen = keys.findIndex(({ scope, id }) => {
      const delivery = this.deliveries.get(`${scope}\u0000${id}`);
      return delivery !== undefined && delivery.expiresAtMs > nowMs;
    });
    if (seen >= 0) return seen;
    for (const { scope, id } of keys) {
      this.deliveries.set(`${scope}\u0000${id}`, { expiresAtMs, executionId });
    }
    return -1;
  }

  async attachExecution(scope: string, id: string, executionId: string): Promise<void> {
    const seen = this.deliveries.get(`${scope}\u0000${id}`);
    if (seen) seen.executionId = executionId;
  }

  async deliveryExecution(scope: string, id: string, nowMs: number) {
    const seen = this.deliveries.get(`${scope}\u0000${id}`);
    return seen && seen.expiresAtMs > nowMs ? seen.executionId : undefined;
  }

  async forgetDelivery(scope: string, id: string): Promise<void> {
    this.deliveries.delete(`${scope}\u0000${id}`);
  }

  async takeToken(key: string, spec: BucketSpec, nowMs: number): Promise<TokenResult> {
    return this.buckets.take(key, spec, nowMs);
  }

  async getNextFire(workflow: string, triggerId: string) {
    return this.nextFires.get(`${workflow}\u0000${triggerId}`);
  }

  async setNextFire(workflow: string, triggerId: string, fireAtMs: number): Promise<void> {
    this.nextFires.set(`${workflow}\u0000${triggerId}`, fireAtMs);
  }

  async clearSchedules(workflow: string): Promise<void> {
    for (const key of this.nextFires.keys()) {
      if (key.startsWith(`${workflow}\u0000`)) this.nextFires.delete(key);
    }
  }

  async claimFire(workflow: string, triggerId: string, fireAtMs: number, nowMs: number) {
    const key = `${workflow}\u0000${triggerId}\u0000${fireAtMs}`;
    if (this.fires.has(key)) return false;
    this.fires.set(key, nowMs);
    return true;
  }

  async claimFires(fires: readonly FireKey[], nowMs: number): Promise<FireKey[]> {
    const won: FireKey[] = [];
    for (const f of fires)
      if (await this.claimFire(f.workflow, f.triggerId, f.fireAtMs, nowMs)) won.push(f);
    return won;
  }

  async setNextFires(fires: readonly FireKey[]): Promise<void> {
    for (const f of fires) await this.setNextFire(f.workflow, f.triggerId, f.fireAtMs);
  }

  async prune(nowMs: number, beforeMs: number): Promise<void> {
    for (const [key, d] of this.deliveries) if (d.expiresAtMs <= nowMs) this.deliveries.delete(key);
    for (const [key, at] of this.fires) if (at < beforeMs) this.fires.delete(key);
  }
}
