/**
 * The inventory plugin's handlers: an in-memory warehouse. A real service would keep this in
 * a database; the handlers show what matters for a connector service: input arrives already
 * checked against `input_schema`, errors are `WeftError`s with a clear code, and `reserve` is
 * idempotent by the call's idempotency key, since the engine delivers calls at least once.
 */
import { ValidationError, type ExecutionContext } from '@weft/core';

interface Reservation {
  reservation_id: string;
  order_id: string;
  sku: string;
  quantity: number;
}

/** The warehouse: stock on hand by SKU, and reservations by id and by idempotency key. */
export class Warehouse {
  private readonly onHand = new Map<string, number>([
    ['WIDGET-1', 120],
    ['GADGET-7', 8],
    ['GIZMO-42', 0],
  ]);
  private readonly reservations = new Map<string, Reservation>();
  private readonly byKey = new Map<string, Reservation>();
  private next = 1;

  /** Units reserved and not released. */
  private reserved(sku: string): number {
    let total = 0;
    for (const r of this.reservations.values()) if (r.sku === sku) total += r.quantity;
    return total;
  }

  checkStock(input: { skus: string[] }) {
    return {
      items: input.skus.map((sku) => {
        const onHand = this.onHand.get(sku);
        if (onHand === undefined) return { sku, known: false, on_hand: 0, available: 0 };
        return { sku, known: true, on_hand: onHand, available: onHand - this.reserved(sku) };
      }),
    };
  }

  reserve(input: { order_id: string; sku: string; quantity: number }, context: ExecutionContext) {
    const key = context.idempotencyKey;
    const earlier = key ? this.byKey.get(key) : undefined;
    if (earlier) return { ...earlier, remaining: this.available(earlier.sku), replayed: true };
    const available = this.available(input.sku);
    if (input.quantity > available) {
      throw new ValidationError(
        `only ${available} unit(s) of ${input.sku} are available, ${input.quantity} requested`,
        { field: 'input.quantity', constraint: 'available', available },
      );
    }
    const reservation = { reservation_id: `rsv-${this.next++}`, ...input };
    this.reservations.set(reservation.reservation_id, reservation);
    if (key) this.byKey.set(key, reservation);
    return { ...reservation, remaining: this.available(input.sku), replayed: false };
  }

  release(input: { reservation_id: string }) {
    const released = this.reservations.delete(input.reservation_id);
    return { reservation_id: input.reservation_id, released };
  }

  private available(sku: string): number {
    const onHand = this.onHand.get(sku);
    if (onHand === undefined) {
      throw new ValidationError(`unknown SKU ${sku}`, { field: 'input.sku', constraint: 'known' });
    }
    return onHand - this.reserved(sku);
  }
}
