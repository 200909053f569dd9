import type { ExecutionsStore } from '@weft/core';
import type { JournaledStep } from '@weft/engine';

/**
 * What an execution's journaled steps cost (USD): the sum of their `usage.cost_usd` (a
 * subworkflow is journaled as one step, its usage summed). The agents' `maxCost` ledger starts
 * from it when this process first runs an agent step of the execution, so that a run taken over
 * from another replica does not start from zero.
 */
export async function journaledCostUsd(
  store: Pick<ExecutionsStore, 'steps'>,
  executionId: string,
): Promise<number> {
  let total = 0;
  for (const row of await store.steps(executionId)) {
    const cost = (JSON.parse(row.json) as JournaledStep).usage?.cost_usd;
    if (typeof cost === 'number' && Number.isFinite(cost) && cost > 0) total += cost;
  }
  return total;
}
