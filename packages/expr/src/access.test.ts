import { describe, expect, it } from 'vitest';
import { freezeData } from './frozen-data.js';
import { failure, run, sampleScope } from './test-helpers.js';

describe('member access', () => {
  it('reads names, indices, quoted keys and computed keys', () => {
    expect(run('{{ steps.fetch.output.items[1].name }}')).toBe('gadget');
    expect(run(`{{ trigger.payload['key-with-dash'] }}`)).toBe('dashed');
    expect(run(`{{ trigger.payload["nested"].deep }}`)).toBe(1);
    expect(
      run(`{{ steps.fetch.output.items[inputs.one].id }}`, {
        ...sampleScope(),
        inputs: { one: 1 },
      }),
    ).toBe(2);
    expect(run(`{{ trigger.payload['nes' + 'ted'].deep }}`)).toBe(1);
    expect(run('{{ inputs.o[0] }}', { inputs: { o: { '0': 'zero' } } })).toBe('zero');
  });

  it('reads any value of item, and members of the result of any expression', () => {
    expect(run('{{ item }}', { item: 5 })).toBe(5);
    expect(run('{{ item.id }}', { item: { id: 'x' } })).toBe('x');
    expect(run(`{{ (inputs.missing | default(inputs.tags))[1] }}`)).toBe('b');
    expect(run(`{{ (inputs.empty or steps.fetch.output).total }}`)).toBe(2);
  });

  it('reads objects with a null prototype', () => {
    const data = Object.assign(Object.create(null) as object, { a: 1 });
    expect(run('{{ inputs.d.a }}', { inputs: { d: data } })).toBe(1);
  });

  it('returns the same value from frozen data, through its fast path', () => {
    const frozen = freezeData(sampleScope());
    expect(Object.isFrozen(frozen.steps)).toBe(true);
    expect(run('{{ steps.fetch.output.items[1].name }}', frozen)).toBe('gadget');
    expect(run('{{ steps.fetch.output.items[5].name | default(0) }}', frozen)).toBe(0);
    expect(failure('{{ steps.fetch.output.items.length }}', frozen).details.constraint).toBe(
      'type',
    );
    expect(failure('{{ steps.fetch.output.nope }}', frozen).details.constraint).toBe('defined');
    expect(failure('{{ steps.toString }}', frozen).details.constraint).toBe('defined');
  });

  it('still refuses getters in frozen data, without calling them', () => {
    let calls = 0;
    const data = freezeData({
      inputs: Object.defineProperty({ a: 1 }, 'g', { get: () => ++calls, enumerable: true }),
    });
    expect(Object.isFrozen(data.inputs)).toBe(true);
    expect(run('{{ inputs.a }}', data)).toBe(1);
    expect(failure('{{ inputs.g }}', data).details.constraint).toBe('forbidden_property');
    expect(calls).toBe(0);
  });
});

describe('missing references', () => {
  it('names the missing path, the keys that exist and the closest one', () => {
    const error = failure('{{ steps.fetch.output.itmes }}');
    expect(error.details.constraint).toBe('defined');
    expect(error.message).toBe(
      'steps.fetch.output.itmes is not defined (steps.fetch.output has: items, total) (did you mean "items"?)',
    );
    expect(error.suggestion).toBe('items');
    expect(error.offset).toBe(3);
    expect(error.length).toBe('steps.fetch.output.itmes'.length);
  });

  it('says where a longer path stopped', () => {
    const error = failure('{{ steps.fech.output.items[0] }}');
    expect(error.message).toBe(
      'steps.fech.output.items[0] is not defined: steps.fech is missing (steps has: fetch) (did you mean "fetch"?)',
    );
    expect(error.offset).toBe(3);
    expect(error.length).toBe('steps.fech'.length);
  });

  it('reports indexes past the end with the array length', () => {
    expect(failure('{{ steps.fetch.output.items[2] }}').message).toBe(
      'steps.fetch.output.items[2] is not defined (steps.fetch.output.items has 2 elements)',
    );
  });

  it('reports a missing root, and where item exists', () => {
    expect(failure('{{ item }}', {}).message).toBe(
      'item is not defined (item is set only inside for_each)',
    );
    expect(failure('{{ inputs.x }}', {}).message).toBe(
      'inputs.x is not defined: inputs is not set',
    );
  });

  it('names the evaluated key of a computed segment', () => {
    const error = failure(`{{ steps[inputs.name].output }}`);
    expect(error.message).toMatch(
      /^steps\[inputs\.name\]\.output is not defined: steps\["ada lovelace"\] is missing/,
    );
  });

  it('treats a member of null as an error naming the path', () => {
    const error = failure('{{ inputs.nothing.field }}');
    expect(error.details.constraint).toBe('null');
    expect(error.message).toBe('inputs.nothing.field cannot be read: inputs.nothing is null');
  });

  it('treats an own property holding undefined as missing', () => {
    expect(failure('{{ inputs.u }}', { inputs: { u: undefined } }).details.constraint).toBe(
      'defined',
    );
  });
});

describe('allow-list', () => {
  it('refuses .length on arrays and strings, suggesting the filter', () => {
    const error = failure('{{ inputs.tags.length }}');
    expect(error.details.constraint).toBe('type');
    expect(error.message).toContain('write inputs.tags | length');
    expect(error.suggestion).toBe('length');
    expect(failure(`{{ inputs.tags['length'] }}`).details.constraint).toBe('type');
    expect(failure('{{ inputs.name.length }}').message).toContain('| length');
  });

  it('refuses names on arrays and members of scalars', () => {
    expect(failure('{{ inputs.tags.first }}').message).toMatch(/indexed by integers only/);
    expect(failure(`{{ inputs.tags['0'] }}`).details.constraint).toBe('type');
    expect(failure('{{ inputs.count.x }}').message).toBe(
      'inputs.count is a number, which has no members; cannot read .x',
    );
    expect(failure('{{ inputs.name[0] }}').details.constraint).toBe('type');
  });

  it('refuses negative and fractional computed indices', () => {
    expect(failure('{{ inputs.tags[inputs.count - 4] }}').details.constraint).toBe('range');
    expect(failure('{{ inputs.tags[inputs.count / 2] }}').details.constraint).toBe('type');
    expect(failure('{{ inputs.tags[null] }}').details.constraint).toBe('type');
  });

  it.each([
    '{{ inputs.__proto__ }}',
    '{{ inputs.constructor }}',
    '{{ inputs.prototype }}',
    `{{ inputs['__proto__'] }}`,
    `{{ inputs["constructor"] }}`,
    `{{ inputs['constr' + 'uctor'] }}`,
    `{{ inputs['__pro' + 'to__'].polluted }}`,
    `{{ inputs[inputs.key] }}`,
    `{{ inputs.tags[inputs.key] }}`,
    `{{ (inputs.name)[inputs.key] }}`,
  ])('never reaches a forbidden property: %s', (source) => {
    const scope = { inputs: { name: 'x', tags: [], key: 'constructor' } };
    expect(failure(source, scope).details.constraint).toBe('forbidden_property');
  });

  it('refuses __proto__ even as an own property created by JSON.parse', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}') as Record<
      string,
      unknown
    >;
    const scope = { inputs: parsed };
    expect(run('{{ inputs.ok }}', scope)).toBe(1);
    expect(failure(`{{ inputs['__proto__'].polluted }}`, scope).details.constraint).toBe(
      'forbidden_property',
    );
    expect(failure(`{{ inputs['__' + 'proto__'] }}`, scope).details.constraint).toBe(
      'forbidden_property',
    );
    expect(run('{{ inputs | json }}', scope)).toBe('{"__proto__":{"polluted":true},"ok":1}');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('never reads inherited properties', () => {
    expect(failure('{{ inputs.toString }}').details.constraint).toBe('defined');
    expect(failure('{{ inputs.hasOwnProperty }}').details.constraint).toBe('defined');
    expect(failure('{{ inputs.tags[0].valueOf }}').details.constraint).toBe('type');
  });

  it('never invokes a getter, on either path', () => {
    let calls = 0;
    const data = Object.defineProperty({ plain: 1 }, 'secret', {
      get: () => ++calls,
      enumerable: true,
    });
    const scope = { inputs: { data } };
    expect(failure('{{ inputs.data.secret }}', scope).details.constraint).toBe(
      'forbidden_property',
    );
    expect(
      failure(`{{ inputs.data[inputs.data.plain == 1 ? 'secret' : 'x'] }}`, scope).details
        .constraint,
    ).toBe('forbidden_property');
    expect(failure(`{{ inputs.data.secret | default(1) }}`, scope).details.constraint).toBe(
      'forbidden_property',
    );
    const array = Object.defineProperty([0], 1, { get: () => ++calls });
    expect(failure('{{ inputs.a[1] }}', { inputs: { a: array } }).details.constraint).toBe(
      'forbidden_property',
    );
    expect(calls).toBe(0);
  });

  it('never calls a function found in data', () => {
    let calls = 0;
    const scope = { inputs: { f: () => ++calls, o: { g: () => ++calls } } };
    expect(failure('{{ inputs.f }}', scope).message).toBe(
      'inputs.f is a function; only data can be read',
    );
    expect(failure('{{ inputs.o.g | default(1) }}', scope).details.constraint).toBe('type');
    expect(failure('{{ inputs.f(1) }}', scope).details.constraint).toBe('syntax');
    expect(run('{{ inputs.o | json }}', scope)).toBe('{}');
    expect(calls).toBe(0);
  });

  it('refuses to read into class instances and other non-plain objects', () => {
    class Box {
      value = 1;
    }
    expect(failure('{{ inputs.b.value }}', { inputs: { b: new Box() } }).message).toBe(
      'inputs.b is a non-plain object, which has no members; cannot read .value',
    );
    expect(failure('{{ inputs.m.size }}', { inputs: { m: new Map() } }).details.constraint).toBe(
      'type',
    );
  });
});

describe('secrets in error messages', () => {
  const scope = { inputs: { list: ['a'], map: { x: 1 } }, secrets: { KEY: 'hunter2', PIN: 4321 } };

  it.each([
    '{{ inputs.map[secrets.KEY] }}',
    '{{ inputs.list[secrets.KEY] }}',
    '{{ inputs.list[secrets.PIN] }}',
    '{{ inputs.map[secrets.KEY].deeper }}',
    '{{ inputs.list[0][secrets.KEY] }}',
    '{{ 1.5 | round(secrets.PIN) }}',
    '{{ inputs.list[secrets.PIN / 1000 - 10] }}',
    '{{ inputs.list[secrets.PIN / 1000] }}',
  ])('never shows a secret value: %s', (source) => {
    const error = failure(source, scope);
    expect(error.message).not.toMatch(/hunter2|4321|4\.321|5\.679/);
    expect(JSON.stringify(error.details)).not.toMatch(/hunter2|4321|4\.321|5\.679/);
  });

  it('still shows computed keys that do not come from secrets', () => {
    expect(failure('{{ inputs.map[inputs.list[0]] }}', scope).message).toContain(`inputs.map.a`);
    expect(failure('{{ inputs.map[secrets.KEY] }}', scope).message).toContain('inputs.map[***]');
  });
});
