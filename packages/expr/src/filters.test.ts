import { describe, expect, it } from 'vitest';
import { FILTERS } from './index.js';
import { LIMITS } from './limits.js';
import { failure, run } from './test-helpers.js';

describe('string case filters', () => {
  it('upper-cases and lower-cases strings', () => {
    expect(run('{{ inputs.name | upper }}')).toBe('ADA LOVELACE');
    expect(run(`{{ 'ÉTÉ' | lower }}`)).toBe('été');
  });

  it('title-cases each word', () => {
    expect(run(`{{ 'hello WORLD' | title }}`)).toBe('Hello World');
    expect(run(`{{ 'mary-jane o\\'neil  x' | title }}`)).toBe("Mary-Jane O'neil  X");
    expect(run(`{{ 'élan vital' | title }}`)).toBe('Élan Vital');
  });

  it('names the filter, the expected and the found type', () => {
    const error = failure('{{ inputs.count | upper }}');
    expect(error.details.constraint).toBe('type');
    expect(error.message).toBe('filter upper expects a string, found number');
    expect(failure('{{ inputs.tags | lower }}').message).toBe(
      'filter lower expects a string, found array',
    );
    expect(failure('{{ null | title }}').message).toBe('filter title expects a string, found null');
  });
});

describe('default', () => {
  it('replaces null and missing values, keeps every other value', () => {
    expect(run(`{{ inputs.nothing | default('d') }}`)).toBe('d');
    expect(run(`{{ inputs.missing | default('d') }}`)).toBe('d');
    expect(run(`{{ inputs.empty | default('d') }}`)).toBe('');
    expect(run(`{{ false | default('d') }}`)).toBe(false);
    expect(run(`{{ inputs.count | default(0) }}`)).toBe(3);
  });

  it('absorbs every missing step of its operand path, and members of null', () => {
    expect(run(`{{ steps.other.output.x | default(1) }}`)).toBe(1);
    expect(run(`{{ inputs.nothing.deeper | default(2) }}`)).toBe(2);
    expect(run(`{{ steps.fetch.output.items[9].name | default(3) }}`)).toBe(3);
    expect(run(`{{ item | default(4) }}`)).toBe(4);
    expect(run(`{{ item.name | default(5) }}`, {})).toBe(5);
  });

  it('does not absorb type errors or forbidden keys', () => {
    expect(failure(`{{ inputs.name.first | default('x') }}`).details.constraint).toBe('type');
    expect(failure(`{{ inputs.tags.first | default('x') }}`).details.constraint).toBe('type');
    expect(failure(`{{ inputs['constr' + 'uctor'] | default('x') }}`).details.constraint).toBe(
      'forbidden_property',
    );
  });

  it('only absorbs its direct operand', () => {
    expect(failure(`{{ inputs.missing | upper | default('x') }}`).details.constraint).toBe(
      'defined',
    );
    expect(failure(`{{ (inputs.missing + 'a') | default('x') }}`).details.constraint).toBe(
      'defined',
    );
    expect(failure(`{{ inputs[inputs.missing] | default('x') }}`).details.constraint).toBe(
      'defined',
    );
  });

  it('evaluates the fallback only when it is needed', () => {
    expect(run(`{{ inputs.name | default(inputs.missing) }}`)).toBe('ada lovelace');
    expect(failure(`{{ inputs.nothing | default(inputs.missing) }}`).details.constraint).toBe(
      'defined',
    );
  });
});

describe('length', () => {
  it('counts array elements, string characters and object keys', () => {
    expect(run('{{ inputs.tags | length }}')).toBe(2);
    expect(run(`{{ 'héllo' | length }}`)).toBe(5);
    expect(run(`{{ '😀x' | length }}`)).toBe(2);
    expect(run('{{ steps.fetch.output | length }}')).toBe(2);
  });

  it('refuses other types', () => {
    expect(failure('{{ 3 | length }}').message).toBe(
      'filter length expects an array, a string or an object, found number',
    );
  });
});

describe('json', () => {
  it('serialises with sorted keys and no whitespace', () => {
    expect(run('{{ inputs.o | json }}', { inputs: { o: { b: 1, a: [true, null, 'x'] } } })).toBe(
      '{"a":[true,null,"x"],"b":1}',
    );
    expect(run(`{{ 'a"b' | json }}`)).toBe('"a\\"b"');
    expect(run('{{ 1.5 | json }}')).toBe('1.5');
  });

  it('never calls toJSON or getters found in data', () => {
    let called = false;
    const data = {
      toJSON: () => {
        called = true;
        return 'hijacked';
      },
      a: 1,
    };
    expect(run('{{ inputs.d | json }}', { inputs: { d: data } })).toBe('{"a":1}');
    const withGetter = Object.defineProperty({}, 'g', {
      get: () => ((called = true), 1),
      enumerable: true,
    });
    expect(failure('{{ inputs.d | json }}', { inputs: { d: withGetter } }).details.constraint).toBe(
      'forbidden_property',
    );
    expect(called).toBe(false);
  });

  it('refuses cycles, non-plain objects and results over the limit', () => {
    const cycle: Record<string, unknown> = {};
    cycle['me'] = cycle;
    expect(failure('{{ inputs.c | json }}', { inputs: { c: cycle } }).message).toMatch(
      /contains itself/,
    );
    expect(failure('{{ inputs.m | json }}', { inputs: { m: new Map() } }).message).toMatch(
      /non-plain/,
    );
    const big = { inputs: { list: Array.from({ length: 200_000 }, () => 'abcdef') } };
    const error = failure('{{ inputs.list | json }}', big);
    expect(error.details.constraint).toBe('limit');
    expect(error.message).toContain(String(LIMITS.maxStringLength));
  });

  it('writes dates as ISO strings', () => {
    expect(run('{{ inputs.d | json }}', { inputs: { d: new Date(Date.UTC(2024, 0, 2)) } })).toBe(
      '"2024-01-02T00:00:00.000Z"',
    );
  });
});

describe('round', () => {
  it('rounds to an integer by default, halves away from zero', () => {
    expect(run('{{ 2.5 | round }}')).toBe(3);
    expect(run('{{ -2.5 | round }}')).toBe(-3);
    expect(run('{{ 2.4 | round }}')).toBe(2);
    expect(run('{{ -0.4 | round }}')).toBe(0);
    expect(Object.is(run('{{ -0.4 | round }}'), -0)).toBe(false);
  });

  it('rounds to n decimals as the number is written', () => {
    expect(run('{{ 1.005 | round(2) }}')).toBe(1.01);
    expect(run('{{ 3.14159 | round(3) }}')).toBe(3.142);
    expect(run('{{ -1.005 | round(2) }}')).toBe(-1.01);
    expect(run('{{ 1e-7 | round(15) }}')).toBe(1e-7);
    expect(run('{{ 1e-7 | round(2) }}')).toBe(0);
    expect(run('{{ 1e20 | round(2) }}')).toBe(1e20);
    expect(run('{{ 123.456 | round(inputs.count - 1) }}')).toBe(123.46);
  });

  it('checks the number of digits', () => {
    expect(failure('{{ 1 | round(16) }}').details.constraint).toBe('range');
    expect(failure('{{ 1 | round(-1) }}').details.constraint).toBe('range');
    expect(failure('{{ 1 | round(1.5) }}').details.constraint).toBe('type');
    expect(failure(`{{ 1 | round(inputs.name) }}`).details.constraint).toBe('type');
    expect(failure(`{{ 'x' | round }}`).message).toBe(
      'filter round expects a number, found string',
    );
  });
});

it('lists every filter', () => {
  expect([...FILTERS].sort()).toEqual([
    'default',
    'json',
    'length',
    'lower',
    'round',
    'title',
    'upper',
  ]);
});
