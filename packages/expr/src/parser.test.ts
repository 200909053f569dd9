import { describe, expect, it } from 'vitest';
import { LIMITS } from './limits.js';
import { failure, run } from './test-helpers.js';

describe('precedence', () => {
  it('multiplies before adding and groups with parentheses', () => {
    expect(run('{{ 1 + 2 * 3 }}')).toBe(7);
    expect(run('{{ (1 + 2) * 3 }}')).toBe(9);
    expect(run('{{ 10 - 4 - 3 }}')).toBe(3);
    expect(run('{{ 12 / 2 / 3 }}')).toBe(2);
    expect(run('{{ 7 % 4 * 2 }}')).toBe(6);
  });

  it('applies a filter to the nearest operand, as Jinja does', () => {
    expect(run(`{{ 'a' + 'b' | upper }}`)).toBe('aB');
    expect(run(`{{ ('a' + 'b') | upper }}`)).toBe('AB');
    expect(run('{{ inputs.tags | length * 10 }}')).toBe(20);
    expect(run('{{ inputs.tags | length == 2 }}')).toBe(true);
  });

  it('applies a filter after unary minus', () => {
    expect(run('{{ -inputs.count | round }}')).toBe(-3);
    expect(run('{{ -2.5 | round }}')).toBe(-3);
  });

  it('chains filters left to right', () => {
    expect(run(`{{ 'Ab' | upper | lower }}`)).toBe('ab');
    expect(run(`{{ 'Ab' | lower | length }}`)).toBe(2);
  });

  it('compares before `not`, `not` before `and`, `and` before `or`', () => {
    expect(run('{{ not 1 == 2 }}')).toBe(true);
    expect(run('{{ not false and false }}')).toBe(false);
    expect(run('{{ true or true and false }}')).toBe(true);
    expect(run('{{ (true or true) and false }}')).toBe(false);
  });

  it('gives the conditional the lowest precedence and groups it to the right', () => {
    expect(run(`{{ 1 + 1 == 2 ? 'yes' : 'no' }}`)).toBe('yes');
    expect(run(`{{ false ? 'a' : true ? 'b' : 'c' }}`)).toBe('b');
    expect(run(`{{ true ? false ? 'x' : 'y' : 'z' }}`)).toBe('y');
    expect(run(`{{ false or 0 ? 'a' : 'b' }}`)).toBe('b');
  });
});

describe('syntax errors', () => {
  it('refuses chained comparisons', () => {
    const error = failure('{{ 1 < 2 < 3 }}');
    expect(error.message).toMatch(/cannot be chained/);
    expect(error.offset).toBe(9);
  });

  it('refuses function calls and says how to write a filter', () => {
    const call = failure('{{ upper(inputs.name) }}');
    expect(call.message).toMatch(
      /function calls are not allowed; filters are written `value \| name\(args\)`/,
    );
    expect(call.message).toContain('value | upper');
    expect(failure('{{ foo(1) }}').message).toMatch(/function calls are not allowed/);
    expect(failure('{{ inputs.name(1) }}').message).toMatch(/function calls are not allowed/);
  });

  it('names an unknown root and suggests the closest one', () => {
    const error = failure('{{ imputs.name }}');
    expect(error.details.constraint).toBe('unknown_root');
    expect(error.message).toContain('did you mean "inputs"?');
    expect(error.suggestion).toBe('inputs');
    expect(error.details.field).toBe('imputs');
    expect(error.offset).toBe(3);
    expect(error.length).toBe(6);
  });

  it('translates literals of other languages', () => {
    expect(failure('{{ undefined }}').message).toContain('write `null`');
    expect(failure('{{ True }}').suggestion).toBe('true');
  });

  it('explains that a dash in a dotted name is a minus', () => {
    const error = failure('{{ steps.fetch-data.output }}');
    expect(error.message).toContain(`['fetch-data']`);
  });

  it('names an unknown filter and suggests the closest one', () => {
    const error = failure('{{ inputs.name | uper }}');
    expect(error.details.constraint).toBe('unknown_filter');
    expect(error.suggestion).toBe('upper');
    expect(error.offset).toBe(17);
  });

  it('checks filter arity', () => {
    expect(failure('{{ inputs.name | upper(1) }}').details.constraint).toBe('arity');
    expect(failure('{{ inputs.name | default }}').details.constraint).toBe('arity');
    expect(failure('{{ 1 | round(1, 2) }}').message).toMatch(/takes 0 to 1 argument\(s\), found 2/);
    expect(run('{{ inputs.name | upper() }}')).toBe('ADA LOVELACE');
  });

  it('reports what was expected and what was found', () => {
    expect(failure('{{ }}').message).toBe('expected an expression, found `}}`');
    expect(failure('{{ 1 + }}').message).toBe('expected an expression, found `}}`');
    expect(failure('{{ (1 + 2 }}').message).toBe('expected `)` to close `(`, found `}}`');
    expect(failure('{{ 1 2 }}').message).toBe('expected an operator or `}}`, found number 2');
    expect(failure('{{ inputs. }}').message).toMatch(/expected a name after `.`/);
    expect(failure('{{ inputs.tags.0 }}').message).toContain('write [0]');
    expect(failure('{{ [1] }}').message).toMatch(/array literals/);
    expect(failure(`{{ true ? 1 }}`).message).toMatch(/expected `:`/);
  });

  it('rejects forbidden and malformed literal keys when compiling', () => {
    expect(failure('{{ inputs.constructor }}').details.constraint).toBe('forbidden_property');
    expect(failure(`{{ inputs['__proto__'] }}`).details.constraint).toBe('forbidden_property');
    expect(failure('{{ inputs.tags[-1] }}').details.constraint).toBe('range');
    expect(failure('{{ inputs.tags[1.5] }}').details.constraint).toBe('type');
    expect(failure('{{ inputs.tags[true] }}').details.constraint).toBe('type');
  });
});

describe('limits', () => {
  it('refuses expressions nested deeper than maxDepth', () => {
    const deep = `{{ ${'('.repeat(LIMITS.maxDepth)}1${')'.repeat(LIMITS.maxDepth)} }}`;
    const error = failure(deep);
    expect(error.details.constraint).toBe('limit');
    expect(error.message).toContain('maxDepth');
    const fine = `{{ ${'('.repeat(LIMITS.maxDepth - 2)}1${')'.repeat(LIMITS.maxDepth - 2)} }}`;
    expect(run(fine)).toBe(1);
    expect(failure(`{{ ${'not '.repeat(100)}true }}`).details.constraint).toBe('limit');
  });

  it('refuses expressions with more than maxNodes nodes', () => {
    const error = failure(`{{ ${Array(LIMITS.maxNodes).fill('1').join(' + ')} }}`);
    expect(error.details.constraint).toBe('limit');
    expect(error.message).toContain('maxNodes');
    expect(run(`{{ ${Array(400).fill('1').join(' + ')} }}`)).toBe(400);
  });
});
