import { describe, expect, it } from 'vitest';
import { freezeData, isDeepData } from './frozen-data.js';
import { failure, run } from './test-helpers.js';

describe('freezeData', () => {
  it('deep-freezes plain data and marks it verified', () => {
    const data = freezeData({ a: [{ b: 1 }], c: 'x' });
    expect(Object.isFrozen(data.a[0])).toBe(true);
    expect(isDeepData(data)).toBe(true);
    expect(isDeepData(data.a)).toBe(true);
    expect(() => {
      (data as { c: string }).c = 'y';
    }).toThrow(TypeError);
  });

  it('does not mark trees holding accessors, cycles or non-plain objects', () => {
    const withGetter = freezeData({ inner: Object.defineProperty({}, 'g', { get: () => 1 }) });
    expect(isDeepData(withGetter)).toBe(false);
    const cycle: Record<string, unknown> = { x: 1 };
    cycle['self'] = { back: cycle };
    freezeData(cycle);
    expect(isDeepData(cycle)).toBe(false);
    expect(isDeepData(cycle['self'] as object)).toBe(false);
    const withDate = freezeData({ when: new Date(0), plain: { ok: true } });
    expect(isDeepData(withDate)).toBe(false);
    expect(isDeepData(withDate.plain)).toBe(true);
  });

  it('leaves class instances unfrozen', () => {
    class Box {
      value = 1;
    }
    const data = freezeData({ box: new Box() });
    expect(Object.isFrozen(data.box)).toBe(false);
  });

  it('reads verified subtrees of unfrozen data with the same results', () => {
    const fetch = freezeData({ output: { items: [{ name: 'widget' }] }, status: 'success' });
    const scope = { steps: { fetch } };
    expect(run('{{ steps.fetch.output.items[0].name | upper }}', scope)).toBe('WIDGET');
    expect(failure('{{ steps.fetch.output.items[1].name }}', scope).message).toBe(
      'steps.fetch.output.items[1].name is not defined: steps.fetch.output.items[1] is missing (steps.fetch.output.items has 1 element)',
    );
    expect(failure('{{ steps.fetch.output.items.length }}', scope).details.constraint).toBe('type');
    expect(failure('{{ steps.fetch.output.toString }}', scope).details.constraint).toBe('defined');
    expect(run('{{ steps.fetch.output.items[0].nope | default(2) }}', scope)).toBe(2);
  });

  it('reads cyclic frozen data correctly through the checked path', () => {
    const cycle: Record<string, unknown> = { x: 1 };
    cycle['self'] = cycle;
    freezeData(cycle);
    expect(run('{{ inputs.self.self.x }}', { inputs: cycle })).toBe(1);
  });
});
