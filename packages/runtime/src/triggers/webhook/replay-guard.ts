import type { DeliveryKey, TriggerStore } from '@weft/core';
import { replayed, replayedSignature } from './refusal.js';

/** What identifies one delivery within a webhook's replay window. */
export interface DeliveryKeys {
  /** The sender's delivery id (`webhook-id`, `X-GitHub-Delivery`, `X-Delivery-Id`), if sent. */
  deliveryId: string | undefined;
  /**
   * The verified HMAC digest of a `sha256=<hex>`, hex or base64 signature: those forms do not
   * sign the delivery id, so a captured request replayed under another id (or none) is known by
   * its signature. Undefined for the Standard Webhooks form (it signs its id) and bearer tokens.
   */
  digest: Buffer | undefined;
}

/** A delivery claimed for the window: note the execution it started, or release it. */
export interface DeliveryClaim {
  /** Notes the execution the delivery started when it is not the one claimed with it. */
  attach(executionId: string): Promise<void>;
  /** Forgets the delivery: its execution could not be started, so a retry must be accepted. */
  release(): Promise<void>;
}

/**
 * Claims a delivery of webhook `scope` in the trigger store (shared by replicas on PostgreSQL)
 * until `expiresAtMs`, noting `executionId` (the execution it is to start): its delivery id and
 * its signature (under `signature:<scope>`, so no sender's id can collide with one), each a
 * unique key of `webhook_deliveries`, remembered together in one write. A key seen within the
 * window throws 409 `replayed_delivery` naming the first execution; a refused claim leaves
 * nothing behind (the id it brought may still arrive for real).
 */
export async function claimDelivery(
  store: TriggerStore,
  scope: string,
  { deliveryId, digest }: DeliveryKeys,
  nowMs: number,
  expiresAtMs: number,
  executionId: string,
): Promise<DeliveryClaim> {
  const keys: DeliveryKey[] = [];
  if (deliveryId !== undefined) keys.push({ scope, id: deliveryId });
  if (digest !== undefined) keys.push({ scope: `signature:${scope}`, id: digest.toString('hex') });
  if (keys.length > 0) {
    const seen = await store.rememberDeliveries(keys, nowMs, expiresAtMs, executionId);
    if (seen >= 0) {
      const key = keys[seen]!;
      const first = await store.deliveryExecution(key.scope, key.id, nowMs);
      throw key.scope === scope ? replayed(key.id, first) : replayedSignature(deliveryId, first);
    }
  }
  return {
    attach: async (started) => {
      if (started === executionId) return;
      for (const { scope: s, id } of keys) await store.attachExecution(s, id, started);
    },
    release: async () => {
      for (const { scope: s, id } of keys) await store.forgetDelivery(s, id);
    },
  };
}
