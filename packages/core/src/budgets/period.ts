import type { BudgetPeriod } from '../workflow/budgets.js';

const DAY_MS = 86_400_000;

/**
 * The period (UTC) that holds `nowMs`: its start and end as ISO timestamps (`end` excluded). A
 * day starts at midnight UTC, a week on Monday (ISO 8601), a month on its first day.
 */
export function budgetPeriodAt(
  period: BudgetPeriod,
  nowMs: number,
): { start: string; end: string } {
  const now = new Date(nowMs);
  const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  let start: number;
  let end: number;
  if (period === 'day') {
    start = day;
    end = day + DAY_MS;
  } else if (period === 'week') {
    const sinceMonday = (now.getUTCDay() + 6) % 7;
    start = day - sinceMonday * DAY_MS;
    end = start + 7 * DAY_MS;
  } else {
    start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
    end = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  }
  return { start: new Date(start).toISOString(), end: new Date(end).toISOString() };
}
