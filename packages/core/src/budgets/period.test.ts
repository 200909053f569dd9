import { describe, expect, it } from 'vitest';
import { budgetPeriodAt } from './period.js';

const at = (iso: string) => Date.parse(iso);

describe('budget periods (UTC)', () => {
  it('start a day at midnight UTC, whatever the hour', () => {
    expect(budgetPeriodAt('day', at('2026-03-04T23:59:59.999Z'))).toEqual({
      start: '2026-03-04T00:00:00.000Z',
      end: '2026-03-05T00:00:00.000Z',
    });
  });

  it('start a week on Monday (ISO 8601), a Sunday still in the week before', () => {
    expect(budgetPeriodAt('week', at('2026-03-08T12:00:00Z'))).toEqual({
      start: '2026-03-02T00:00:00.000Z',
      end: '2026-03-09T00:00:00.000Z',
    });
    expect(budgetPeriodAt('week', at('2026-03-09T00:00:00Z')).start).toBe(
      '2026-03-09T00:00:00.000Z',
    );
    // Across a year's end.
    expect(budgetPeriodAt('week', at('2027-01-01T08:00:00Z')).start).toBe(
      '2026-12-28T00:00:00.000Z',
    );
  });

  it('start a month on its first day, February of a leap year included', () => {
    expect(budgetPeriodAt('month', at('2028-02-29T10:00:00Z'))).toEqual({
      start: '2028-02-01T00:00:00.000Z',
      end: '2028-03-01T00:00:00.000Z',
    });
    expect(budgetPeriodAt('month', at('2026-12-31T23:00:00Z')).end).toBe(
      '2027-01-01T00:00:00.000Z',
    );
  });
});
