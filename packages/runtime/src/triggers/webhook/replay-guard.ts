import type { TriggerStore } from '@weft/core';
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
  /** Notes the execution the delivery started (named when it is replayed). */
  attach(executionId: string): Promise<void>;
  /** Forgets the delivery: its execution could not be started, so a retry must be accepted. */
  release(): Promise<void>;
}

/**
 * Claims a delivery of webhook `scope` in the trigger store (shared by replicas on PostgreSQL)
 * until `expiresAtMs`: first its delivery id, then its signature, each a unique key of
 * `webhook_deliveries` (signatures under `signature:<scope>`, so no sender's id can collide with
 * one). A key seen within the window throws 409 `replayed_delivery` naming the first execution;
 * a refused claim leaves nothing behind (the id it brought may still arrive for real).
 */
export async function claimDelivery(
  store: TriggerStore,
  scope: string,
  { deliveryId, digest }: DeliveryKeys,
  nowMs: number,
  expiresAtMs: number,
): Promise<DeliveryClaim> {
  const keys: [string, string][] = [];
  if (deliveryId !== undefined) {
    if (!(await store.rememberDelivery(scope, deliveryId, nowMs, expiresAtMs))) {
      throw replayed(deliveryId, await store.deliveryExecution(scope, deliveryId, nowMs));
    }
    keys.push([scope, deliveryId]);
  }
  if (digest !== undefined) {
    const signatureScope = `signature:${scope}`;
    const signature = digest.toString('hex');
    if (!(await store.rememberDelivery(signatureScope, signature, nowMs, expiresAtMs))) {
      for (const [s, id] of keys) await store.forgetDelivery(s, id);
      throw replayedSignature(
        deliveryId,
        await store.deliveryExecution(signatureScope, signature, nowMs),
      );
    }
    keys.push([signatureScope, signature]);
  }
  return {
    attach: async (executionId) => {
      for (const [s, id] of keys) await store.attachExecution(s, id, executionId);
    },
    release: async () => {
      for (const [s, id] of keys) await store.forgetDelivery(s, id);
    },
  };
}
