import { describe, expect, it } from 'vitest';
import { errors, load, withSteps } from '../test-support/load.js';

const file = (budgets: string) =>
  `${withSteps('      - { name: a, plugin: p, action: x }\n')}    budgets: ${budgets}\n`;

describe('workflow budgets', () => {
  it('takes limits over a known period', () => {
    const result = load(file('{ maxCost: 25, maxTokens: 2000000, period: week }'));
    expect(errors(result)).toEqual([]);
    expect(result.ok && result.workflows[0]!.budgets).toEqual({
      maxCost: 25,
      maxTokens: 2000000,
      period: 'week',
    });
  });

  it('refuses limits that are not positive, unknown periods and keys, and no limit at all', () => {
    expect(errors(load(file('{ maxCost: 0, period: day }')))[0]).toMatch(
      /^workflows\[0\]\.budgets\.maxCost: .*> 0/,
    );
    expect(errors(load(file('{ maxTokens: 1.5, period: day }')))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^workflows\[0\]\.budgets\.maxTokens: /)]),
    );
    expect(errors(load(file('{ maxCost: 5, period: year }')))[0]).toMatch(
      /^workflows\[0\]\.budgets\.period: .*day.*week.*month/,
    );
    expect(errors(load(file('{ maxCost: 5, period: day, maxCalls: 3 }')))[0]).toMatch(
      /^workflows\[0\]\.budgets.*maxCalls/,
    );
    expect(errors(load(file('{ period: day }')))).toEqual([
      'workflows[0].budgets: budgets sets no limit: give maxCost (USD), maxTokens, or both',
    ]);
  });

  it('names the field and constraint of a refusal in its diagnostic', () => {
    const result = load(file('{ maxCost: -1, period: day }'));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.diagnostics[0]).toMatchObject({ path: 'workflows[0].budgets.maxCost' });
      expect(result.diagnostics[0]).toMatchObject({ code: 'range', line: 5 });
    }
  });
});
