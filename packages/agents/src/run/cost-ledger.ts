/** What an execution's finished steps spent (USD), read from where they are recorded. */
export type SpentLoader = (rootExecutionId: string) => Promise<number>;

/** Options of {@link CostLedger}. */
export interface CostLedgerOptions {
  /** Executions remembered at most, the oldest forgotten first. Default 10,000. */
  capacity?: number;
  /**
   * What an execution spent before this process first ran one of its agent steps: the sum of
   * `usage.cost_usd` of its journaled steps (the server reads its journal), so that a run taken
   * over from another replica, or resumed after its entry was forgotten, starts from what was
   * spent. Default: nothing (a process that runs whole executions, such as the CLI).
   */
  spent?: SpentLoader;
}

/**
 * What each execution's agent steps spent (USD), for `maxCost`, which holds per execution across
 * all its steps (and its subworkflows', whose ids are `<execution id>/<step path>`). Held in
 * memory by the runner, seeded on first use in the process by {@link CostLedgerOptions.spent}.
 */
export class CostLedger {
  private readonly spent = new Map<string, number>();
  private readonly loading = new Map<string, Promise<void>>();
  private readonly capacity: number;
  private readonly load: SpentLoader | undefined;

  constructor(options: CostLedgerOptions | number = {}) {
    const { capacity = 10_000, spent } =
      typeof options === 'number' ? { capacity: options } : options;
    this.capacity = capacity;
    this.load = spent;
  }

  /**
   * Reads what `executionId`'s root execution spent before, once per process (while it is
   * remembered); concurrent steps of one execution share the read. A failed read fails the
   * step: `maxCost` cannot be held without it.
   */
  async ensure(executionId: string): Promise<void> {
    if (!this.load) return;
    const root = rootOf(executionId);
    if (this.spent.has(root)) return;
    let pending = this.loading.get(root);
    if (!pending) {
      pending = this.load(root)
        .then((before) => {
          if (!this.spent.has(root)) this.remember(root, Number.isFinite(before) ? before : 0);
        })
        .finally(() => this.loading.delete(root));
      this.loading.set(root, pending);
    }
    await pending;
  }

  /** What `executionId` (its root execution) spent so far. */
  spentBy(executionId: string): number {
    return this.spent.get(rootOf(executionId)) ?? 0;
  }

  /** Adds `usd` to what `executionId`'s root execution spent. */
  add(executionId: string, usd: number): void {
    if (usd <= 0) return;
    const root = rootOf(executionId);
    this.remember(root, (this.spent.get(root) ?? 0) + usd);
  }

  private remember(root: string, usd: number): void {
    if (!this.spent.has(root) && this.spent.size >= this.capacity) {
      this.spent.delete(this.spent.keys().next().value!);
    }
    this.spent.set(root, usd);
  }
}

function rootOf(executionId: string): string {
  const slash = executionId.indexOf('/');
  return slash < 0 ? executionId : executionId.slice(0, slash);
}
