import { describe, expect, it } from 'vitest';
import { compileTemplate, type Reference } from './index.js';
import { errorOf } from './test-helpers.js';

function references(source: string): readonly Reference[] {
  return compileTemplate(source).references;
}

describe('references', () => {
  it('lists static paths with their position in the template', () => {
    const source = 'x {{ steps.fetch.output.items[0].name | upper }}';
    expect(references(source)).toEqual([
      {
        root: 'steps',
        path: ['fetch', 'output', 'items', 0, 'name'],
        computed: false,
        optional: false,
        offset: 5,
        length: 'steps.fetch.output.items[0].name'.length,
      },
    ]);
  });

  it('stops the path at the first computed segment and lists the paths inside it', () => {
    const source = `{{ steps[inputs.step].output['a-b'] }}`;
    expect(references(source)).toEqual([
      { root: 'steps', path: [], computed: true, optional: false, offset: 3, length: 5 },
      { root: 'inputs', path: ['step'], computed: false, optional: false, offset: 9, length: 11 },
    ]);
    const [first] = references(`{{ inputs.a['b'][inputs.c].d }}`);
    expect(first).toMatchObject({
      path: ['a', 'b'],
      computed: true,
      length: `inputs.a['b']`.length,
    });
  });

  it('marks the direct operand of default as optional, and nothing else', () => {
    const found = references(
      `{{ inputs.a | default(inputs.b) }} {{ inputs.c | upper | default('') }}`,
    );
    expect(found.map((r) => [r.path[0], r.optional])).toEqual([
      ['a', true],
      ['b', false],
      ['c', false],
    ]);
  });

  it('finds references in every kind of expression, in source order', () => {
    const found = references(
      `{{ not inputs.a and (env.B or -trigger.payload.c) ? item : steps.s.output | round(inputs.d) }}`,
    );
    expect(found.map((r) => r.root)).toEqual([
      'inputs',
      'env',
      'trigger',
      'item',
      'steps',
      'inputs',
    ]);
    expect(found.find((r) => r.root === 'item')?.path).toEqual([]);
  });

  it('lists a root read through a parenthesised base once', () => {
    expect(references('{{ (inputs.list)[0] }}')).toHaveLength(1);
  });
});

describe('secrets', () => {
  it('flags templates that read secrets', () => {
    expect(compileTemplate('Bearer {{ secrets.API_TOKEN }}').readsSecrets).toBe(true);
    expect(compileTemplate(`{{ secrets['API-TOKEN'] | default('') }}`).readsSecrets).toBe(true);
    expect(compileTemplate('{{ inputs.secrets }}').readsSecrets).toBe(false);
    expect(compileTemplate('secrets.X').readsSecrets).toBe(false);
  });

  it('refuses a computed secret name', () => {
    const error = errorOf(() => compileTemplate('{{ secrets[inputs.name] }}'));
    expect(error.details.constraint).toBe('computed_secret');
    expect(error.offset).toBe(3);
    expect(errorOf(() => compileTemplate(`{{ secrets['A' + 'B'] }}`)).details.constraint).toBe(
      'computed_secret',
    );
  });

  it('refuses reading the whole secrets object', () => {
    expect(errorOf(() => compileTemplate('{{ secrets }}')).details.constraint).toBe(
      'computed_secret',
    );
    expect(errorOf(() => compileTemplate('{{ secrets | json }}')).details.constraint).toBe(
      'computed_secret',
    );
    expect(errorOf(() => compileTemplate('{{ (secrets or inputs).X }}')).details.constraint).toBe(
      'computed_secret',
    );
  });

  it('allows computed segments after a literal secret name', () => {
    const template = compileTemplate('{{ secrets.MAP[inputs.key] }}');
    expect(template.references[0]).toMatchObject({
      root: 'secrets',
      path: ['MAP'],
      computed: true,
    });
  });
});
