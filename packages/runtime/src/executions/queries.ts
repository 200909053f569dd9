import { isFinishedStatus, NotFoundError, type StoredExecution } from '@weft/core';
import type { RuntimeParts } from '../runtime-parts.js';

/** True once an execution has ended. */
export function isFinished(execution: Pick<StoredExecution, 'status'>): boolean {
  return isFinishedStatus(execution.status);
}

/**
 * Reads executions for their owners: one execution, or one as soon as it has ended. Another
 * owner's execution is `NOT_FOUND`, exactly like an unknown id.
 */
export class ExecutionQueries {
  constructor(private readonly parts: Pick<RuntimeParts, 'options' | 'worker'>) {}

  /**
   * An execution of `owner` (undefined: any owner's); `NOT_FOUND` for unknown ids and other
   * owners' executions alike.
   */
  async get(id: string, owner: string | undefined): Promise<StoredExecution> {
    const execution = await this.parts.options.store.get(id);
    if (!execution || (owner !== undefined && execution.owner !== owner)) {
      throw new NotFoundError(`no execution ${id}`, { execution_id: id });
    }
    return execution;
  }

  /**
   * Waits up to `ms` for execution `id` to end; gives it as it is then. Woken by this process's
   * writes, polling the store every second for executions running elsewhere.
   */
  async waitFor(
    id: string,
    owner: string,
    ms: number,
    signal?: AbortSignal,
  ): Promise<StoredExecution> {
    const { clock } = this.parts.options;
    const deadline = clock.now() + ms;
    for (;;) {
      const remaining = deadline - clock.now();
      const wake = this.parts.worker.hub.wait(id, Math.max(0, Math.min(remaining, 1000)), signal);
      const execution = await this.get(id, owner);
      if (isFinished(execution) || remaining <= 0 || signal?.aborted) return execution;
      await wake;
    }
  }
}
