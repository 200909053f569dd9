import type { ExecutionStats, ExecutionStatus, StoredExecution } from '@weft/core';
import { order } from './memory-executions-book.js';

/** {@link ExecutionsStore.stats} of `executions` (those of the range), as the SQL stores count. */
export function statsOf(executions: StoredExecution[]): ExecutionStats {
  const hours = new Map<string, number>();
  const durations = new Map<string, number[]>();
  for (const e of executions) {
    const key = `${e.created_at.slice(0, 13)} ${e.status}`;
    hours.set(key, (hours.get(key) ?? 0) + 1);
    if (e.started_at && e.finished_at) {
      const list = durations.get(e.workflow) ?? [];
      list.push(Date.parse(e.finished_at) - Date.parse(e.started_at));
      durations.set(e.workflow, list);
    }
  }
  const rank = (sorted: number[], p: number) =>
    sorted.find((_, i) => (i + 1) * 100 >= p * sorted.length)!;
  return {
    hours: [...hours]
      .map(([key, count]) => {
        const [hour, status] = key.split(' ') as [string, ExecutionStatus];
        return { hour, status, count };
      })
      .sort((a, b) => order(a.hour, b.hour) || order(a.status, b.status)),
    workflows: [...durations]
      .sort(([a], [b]) => order(a, b))
      .map(([workflow, list]) => {
        const sorted = list.sort((a, b) => a - b);
        return {
          workflow,
          count: sorted.length,
          p50_ms: Math.round(rank(sorted, 50)),
          p95_ms: Math.round(rank(sorted, 95)),
        };
      }),
  };
}
