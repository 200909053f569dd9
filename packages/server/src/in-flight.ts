import type { ExecutionsStore } from '@weft/core';

/** An executions store that knows which executions this replica holds a lease on. */
export interface InFlightTracking {
  /** The store to give the runtime (every call goes to the wrapped one). */
  store: ExecutionsStore;
  /** Executions this replica claimed and has not ended or lost. */
  inFlight(): number;
}

/**
 * Wraps the runtime's executions store to count the executions this replica runs (the
 * `weft_executions_in_flight` metric) from what the runtime tells the store: a successful
 * `claim`, or a `create` under a lease, adds one, `finish` removes it, and so does a renewal that finds the lease lost (ended
 * elsewhere, taken over) or gives it up (a lease of 0 at shutdown).
 */
export function trackInFlight(inner: ExecutionsStore): InFlightTracking {
  const held = new Set<string>();
  const overrides: Partial<ExecutionsStore> = {
    claim: async (id, worker, now, leaseUntil, startedAt) => {
      const claimed = await inner.claim(id, worker, now, leaseUntil, startedAt);
      if (claimed) held.add(id);
      return claimed;
    },
    create: async (execution, idempotency, lease, events, steps, durableAtEnd) => {
      const outcome = await inner.create(
        execution,
        idempotency,
        lease,
        events,
        steps,
        durableAtEnd,
      );
      if (outcome.created && lease) held.add(execution.id);
      return outcome;
    },
    finish: async (id, outcome, writes) => {
      try {
        return await inner.finish(id, outcome, writes);
      } finally {
        held.delete(id);
      }
    },
    renew: async (worker, ids, leaseUntil) => {
      const lost = await inner.renew(worker, ids, leaseUntil);
      for (const id of lost) held.delete(id);
      // A lease of 0 gives the executions up (shutdown).
      if (leaseUntil <= 0) for (const id of ids) held.delete(id);
      return lost;
    },
  };
  // Methods of the wrapped store are bound once, not on every call (the journal's hot path).
  const bound = new WeakMap<object, unknown>();
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      if (typeof property === 'string' && property in overrides) {
        return overrides[property as keyof ExecutionsStore];
      }
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      let method = bound.get(value);
      if (method === undefined) bound.set(value, (method = value.bind(target) as unknown));
      return method;
    },
  });
  return { store, inFlight: () => held.size };
}
