import type { ExecutionsStore } from '@weft/core';
import type { JournaledStep } from '@weft/engine';
import { isSavedAgentRow, type SavedAgentRow } from '../waits/tool-calls.js';

/**
 * What an execution's journaled steps cost (USD): the sum of their `usage.cost_usd` (a
 * subworkflow is journaled as one step, its usage summed). The agents' `maxCost` ledger starts
 * from it when this process first runs an agent step of the execution, so that a run taken over
 * from another replica does not start from zero. The saved state of an agent step that waited for
 * a tool call's approval counts until that step is journaled (its usage then holds those turns).
 */
export async function journaledCostUsd(
  store: Pick<ExecutionsStore, 'steps'>,
  executionId: string,
): Promise<number> {
  let total = 0;
  const rows = (await store.steps(executionId)).map((row) => JSON.parse(row.json) as JournaledStep);
  const finished = new Set(rows.filter((row) => !isSavedAgentRow(row)).map((row) => row.path));
  for (const row of rows) {
    if (isSavedAgentRow(row) && finished.has((row as unknown as SavedAgentRow).partial_of))
      continue;
    const cost = row.usage?.cost_usd;
    if (typeof cost === 'number' && Number.isFinite(cost) && cost > 0) total += cost;
  }
  return total;
}
