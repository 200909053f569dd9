/**
 * What each execution's agent steps spent (USD), for `maxCost`, which holds per execution across
 * all its steps (and its subworkflows', whose ids are `<execution id>/<step path>`). Held in
 * memory by the runner: at most `capacity` executions, the oldest forgotten first.
 */
export class CostLedger {
  private readonly spent = new Map<string, number>();

  constructor(private readonly capacity = 10_000) {}

  /** What `executionId` (its root execution) spent so far. */
  spentBy(executionId: string): number {
    return this.spent.get(rootOf(executionId)) ?? 0;
  }

  /** Adds `usd` to what `executionId`'s root execution spent. */
  add(executionId: string, usd: number): void {
    if (usd <= 0) return;
    const root = rootOf(executionId);
    const before = this.spent.get(root);
    if (before === undefined && this.spent.size >= this.capacity) {
      this.spent.delete(this.spent.keys().next().value!);
    }
    this.spent.set(root, (before ?? 0) + usd);
  }
}

function rootOf(executionId: string): string {
  const slash = executionId.indexOf('/');
  return slash < 0 ? executionId : executionId.slice(0, slash);
}
