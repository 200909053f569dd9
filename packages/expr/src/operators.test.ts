import { describe, expect, it } from 'vitest';
import { LIMITS } from './limits.js';
import { failure, run } from './test-helpers.js';
import { isTruthy } from './values.js';

describe('arithmetic', () => {
  it('adds, subtracts, multiplies, divides and takes remainders of numbers', () => {
    expect(run('{{ 2 + 3 }}')).toBe(5);
    expect(run('{{ 2 - 3 }}')).toBe(-1);
    expect(run('{{ 2 * 3 }}')).toBe(6);
    expect(run('{{ 3 / 2 }}')).toBe(1.5);
    expect(run('{{ 7 % 3 }}')).toBe(1);
    expect(run('{{ -7 % 3 }}')).toBe(-1);
    expect(run('{{ inputs.count * 2 }}')).toBe(6);
  });

  it('negates numbers only', () => {
    expect(run('{{ -inputs.count }}')).toBe(-3);
    expect(run('{{ -(0) }}')).toBe(0);
    expect(Object.is(run('{{ -(0) }}'), -0)).toBe(false);
    expect(failure(`{{ -inputs.name }}`).message).toBe('- expects a number, found string');
  });

  it('joins text when either operand of + is a string', () => {
    expect(run(`{{ 'a' + 'b' }}`)).toBe('ab');
    expect(run(`{{ 'n=' + 1 }}`)).toBe('n=1');
    expect(run(`{{ 1 + '' }}`)).toBe('1');
    expect(run(`{{ 'x' + true }}`)).toBe('xtrue');
    expect(run(`{{ 'x' + null }}`)).toBe('x');
    expect(run(`{{ 'tags: ' + inputs.tags }}`)).toBe('tags: ["a","b"]');
  });

  it('refuses + on other pairs and - * / % on non-numbers', () => {
    expect(failure('{{ 1 + true }}').message).toBe(
      '+ expects two numbers or a string, found number and boolean',
    );
    expect(failure('{{ inputs.tags + inputs.tags }}').details.constraint).toBe('type');
    expect(failure(`{{ 'a' - 1 }}`).message).toBe('- expects two numbers, found string and number');
    expect(failure(`{{ 'a' * 2 }}`).details.constraint).toBe('type');
    expect(failure(`{{ null / 2 }}`).details.constraint).toBe('type');
    expect(failure(`{{ 5 % '2' }}`).details.constraint).toBe('type');
  });

  it('refuses division by zero and non-finite results', () => {
    const division = failure('{{ 1 / 0 }}');
    expect(division.details.constraint).toBe('arithmetic');
    expect(division.message).toBe('division by zero');
    expect(failure('{{ 1 % 0 }}').details.constraint).toBe('arithmetic');
    expect(failure('{{ 1e308 * 10 }}').details.constraint).toBe('arithmetic');
    expect(failure('{{ 1e308 + 1e308 }}').message).toMatch(/not a finite number/);
  });

  it('locates an operator error at its whole expression', () => {
    const error = failure('{{ 1 + (2 / 0) }}');
    expect(error.offset).toBe(8);
    expect(error.length).toBe(5);
    expect(error.details.field).toBe('2 / 0');
  });

  it('caps strings built by + at maxStringLength', () => {
    const half = 'x'.repeat(LIMITS.maxStringLength / 2 + 1);
    const error = failure('{{ inputs.s + inputs.s }}', { inputs: { s: half } });
    expect(error.details.constraint).toBe('limit');
    expect(error.message).toContain('maxStringLength');
    const exact = 'x'.repeat(LIMITS.maxStringLength / 2);
    expect(run('{{ inputs.s + inputs.s }}', { inputs: { s: exact } })).toHaveLength(
      LIMITS.maxStringLength,
    );
  });

  it('stops doubling a string before it grows past the limit', () => {
    const doubling = `{{ ${Array(30).fill(`inputs.s`).join(' + ')} }}`;
    const error = failure(doubling, { inputs: { s: 'y'.repeat(50_000) } });
    expect(error.details.constraint).toBe('limit');
  });
});

describe('comparisons', () => {
  it('compares numbers and strings', () => {
    expect(run('{{ 1 < 2 }}')).toBe(true);
    expect(run('{{ 2 <= 2 }}')).toBe(true);
    expect(run('{{ 1 > 2 }}')).toBe(false);
    expect(run('{{ 2 >= 3 }}')).toBe(false);
    expect(run(`{{ 'a' < 'b' }}`)).toBe(true);
    expect(run(`{{ 'B' < 'a' }}`)).toBe(true);
  });

  it('refuses ordering of mixed or non-scalar types', () => {
    const error = failure(`{{ 1 < '2' }}`);
    expect(error.details.constraint).toBe('type');
    expect(error.message).toBe('< compares two numbers or two strings, found number and string');
    expect(failure('{{ null >= 1 }}').details.constraint).toBe('type');
    expect(failure('{{ inputs.tags > inputs.tags }}').details.constraint).toBe('type');
  });

  it('tests deep equality of JSON values', () => {
    expect(run('{{ 1 == 1.0 }}')).toBe(true);
    expect(run(`{{ 1 == '1' }}`)).toBe(false);
    expect(run('{{ null == null }}')).toBe(true);
    expect(
      run(`{{ inputs.tags == inputs.other }}`, { inputs: { tags: ['a', 'b'], other: ['a', 'b'] } }),
    ).toBe(true);
    expect(
      run(`{{ inputs.tags != inputs.other }}`, { inputs: { tags: ['a'], other: ['a', 'b'] } }),
    ).toBe(true);
    const objects = {
      inputs: { a: { x: 1, y: [1, { z: null }] }, b: { y: [1, { z: null }], x: 1 }, c: { x: 1 } },
    };
    expect(run('{{ inputs.a == inputs.b }}', objects)).toBe(true);
    expect(run('{{ inputs.a == inputs.c }}', objects)).toBe(false);
    expect(run('{{ inputs.c != inputs.a }}', objects)).toBe(true);
  });

  it('refuses to compare values nested without end', () => {
    const a: Record<string, unknown> = {};
    a['self'] = a;
    const b: Record<string, unknown> = {};
    b['self'] = b;
    expect(failure('{{ inputs.a == inputs.b }}', { inputs: { a, b } }).details.constraint).toBe(
      'limit',
    );
  });
});

describe('logic and truthiness', () => {
  it.each([false, null, undefined, 0, Number.NaN, '', [], {}, Object.create(null) as object])(
    'treats %s as falsy',
    (value) => expect(isTruthy(value)).toBe(false),
  );

  it.each([true, 1, -1, 'x', ' ', [0], { a: null }, new Date(0)])('treats %s as truthy', (value) =>
    expect(isTruthy(value)).toBe(true),
  );

  it('returns the deciding operand of and / or', () => {
    expect(run(`{{ inputs.empty or 'fallback' }}`)).toBe('fallback');
    expect(run(`{{ inputs.name or 'fallback' }}`)).toBe('ada lovelace');
    expect(run(`{{ inputs.count and inputs.name }}`)).toBe('ada lovelace');
    expect(run(`{{ inputs.empty and inputs.name }}`)).toBe('');
    expect(run(`{{ inputs.tags and 'has tags' }}`)).toBe('has tags');
  });

  it('short-circuits: the operand not needed is not evaluated', () => {
    expect(run('{{ false and inputs.missing }}')).toBe(false);
    expect(run('{{ true or inputs.missing }}')).toBe(true);
    expect(run('{{ true ? 1 : inputs.missing }}')).toBe(1);
    expect(failure('{{ true and inputs.missing }}').details.constraint).toBe('defined');
  });

  it('returns a boolean from not', () => {
    expect(run('{{ not inputs.empty }}')).toBe(true);
    expect(run('{{ not inputs.tags }}')).toBe(false);
    expect(run('{{ not not inputs.name }}')).toBe(true);
  });

  it('chooses a branch of the conditional by truthiness', () => {
    expect(run(`{{ inputs.nothing ? 'a' : 'b' }}`)).toBe('b');
    expect(run(`{{ inputs.tags ? inputs.tags[0] : 'none' }}`)).toBe('a');
  });
});
