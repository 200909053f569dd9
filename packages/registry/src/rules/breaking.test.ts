import { describe, expect, it } from 'vitest';
import type { StoredDefinition, VersionRecord } from '@weft/core';
import {
  comparedVersion,
  diffDefinitions,
  isBreakingStep,
  nextBreakingVersion,
  requireBreakingStep,
} from './breaking.js';

type Action = StoredDefinition['actions'][number];

const action = (name: string, input?: object, output?: object): Action =>
  ({
    name,
    description: name,
    ...(input ? { input_schema: input } : {}),
    ...(output ? { output_schema: output } : {}),
  }) as Action;

const definition = (...actions: Action[]) => ({ actions }) as StoredDefinition;

const object = (properties: Record<string, object>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
});

/** The diff of one action's input (or output) from `before` to `after`. */
function diffInput(before: object, after: object) {
  return diffDefinitions(
    '1.3.0',
    definition(action('get', before)),
    definition(action('get', after)),
  );
}
function diffOutput(before: object, after: object) {
  return diffDefinitions(
    '1.3.0',
    definition(action('get', undefined, before)),
    definition(action('get', undefined, after)),
  );
}
const changes = (list: { path: string; change: string }[]) =>
  list.map((c) => `${c.path}: ${c.change}`);

describe('breaking changes between versions', () => {
  it('reports a removed or renamed action as breaking and a new action as compatible', () => {
    const diff = diffDefinitions(
      '1.3.0',
      definition(action('get'), action('list')),
      definition(action('fetch'), action('list')),
    );
    expect(diff.breaks).toEqual([
      { action: 'get', path: 'action', change: 'removed (renamed? new: fetch)' },
    ]);
    expect(diff.compatible).toEqual([{ action: 'fetch', path: 'action', change: 'added' }]);
    expect(diff.required_version).toBe('2.0.0');
  });

  it('reports a removed input property as breaking', () => {
    const diff = diffInput(object({ id: { type: 'string' } }), object({}));
    expect(changes(diff.breaks)).toEqual(['input.properties.id: removed']);
  });

  it.each([
    [
      { type: ['string', 'number'] },
      { type: 'string' },
      'type narrowed: [number, string] → string',
    ],
    [{ type: 'number' }, { type: 'integer' }, 'type narrowed: number → integer'],
    [{}, { type: 'string' }, 'type narrowed: any → string'],
    [{ enum: ['a', 'b'] }, { enum: ['a'] }, 'enum lost "b"'],
    [{ type: 'string' }, { type: 'string', enum: ['a'] }, 'enum added: "a"'],
    [{ maxLength: 10 }, { maxLength: 5 }, 'maxLength lowered: 10 → 5'],
    [{ maximum: 10 }, { maximum: 9 }, 'maximum lowered: 10 → 9'],
    [{ minLength: 1 }, { minLength: 2 }, 'minLength raised: 1 → 2'],
    [{ minimum: 0 }, { minimum: 1 }, 'minimum raised: 0 → 1'],
    [{}, { maxItems: 3 }, 'maxItems 3 added'],
  ])('reports an input type narrowed from %j to %j', (before, after, change) => {
    const diff = diffInput(object({ id: before }), object({ id: after }));
    expect(changes(diff.breaks)).toEqual([`input.properties.id: ${change}`]);
  });

  it.each([
    [{ type: 'string' }, { type: ['string', 'number'] }],
    [{ type: 'integer' }, { type: 'number' }],
    [{ enum: ['a'] }, { enum: ['a', 'b'] }],
    [{ maxLength: 5 }, { maxLength: 10 }],
    [{ minimum: 1 }, {}],
  ])('passes an input widened from %j to %j', (before, after) => {
    const diff = diffInput(object({ id: before }), object({ id: after }));
    expect(diff.breaks).toEqual([]);
    expect(diff.compatible).toHaveLength(1);
    expect(diff.required_version).toBe('1.3.1');
  });

  it('reports a new required input, or an optional one made required, as breaking', () => {
    const diff = diffInput(
      object({ id: { type: 'string' }, limit: { type: 'integer' } }, ['id']),
      object({ id: { type: 'string' }, limit: { type: 'integer' }, team: { type: 'string' } }, [
        'id',
        'limit',
        'team',
      ]),
    );
    expect(changes(diff.breaks)).toEqual([
      'input.properties.limit: made required (was optional)',
      'input.properties.team: added as required',
    ]);
  });

  it('passes a new optional input and an input made optional', () => {
    const diff = diffInput(
      object({ id: { type: 'string' } }, ['id']),
      object({ id: { type: 'string' }, team: { type: 'string' } }),
    );
    expect(diff.breaks).toEqual([]);
    expect(changes(diff.compatible)).toEqual([
      'input.properties.team: added',
      'input.properties.id: made optional',
    ]);
  });

  it('takes an action without an input schema as taking any object', () => {
    const added = diffDefinitions(
      '1.3.0',
      definition(action('get')),
      definition(action('get', object({ id: { type: 'string' } }))),
    );
    expect(added.breaks).toEqual([]);
    const required = diffDefinitions(
      '1.3.0',
      definition(action('get')),
      definition(action('get', object({ id: { type: 'string' } }, ['id']))),
    );
    expect(changes(required.breaks)).toEqual(['input.properties.id: added as required']);
  });

  it('compares nested properties and array items', () => {
    const diff = diffInput(
      object({ filter: object({ tags: { type: 'array', items: { type: 'string' } } }) }),
      object({ filter: object({ tags: { type: 'array', items: { type: 'integer' } } }) }),
    );
    expect(changes(diff.breaks)).toEqual([
      'input.properties.filter.properties.tags.items: type narrowed: string → integer',
    ]);
  });

  it('reports an output property removed, no longer required or changed type as breaking', () => {
    const diff = diffOutput(
      object({ total: { type: 'integer' }, id: { type: 'string' }, n: { type: 'integer' } }, [
        'id',
      ]),
      object({ id: { type: 'string' }, n: { type: 'number' } }),
    );
    expect(changes(diff.breaks)).toEqual([
      'output.properties.total: removed',
      'output.properties.id: no longer required (may be missing)',
      'output.properties.n: type changed: integer → number',
    ]);
  });

  it('passes a new output property and a narrowed output type', () => {
    const diff = diffOutput(
      object({ n: { type: 'number' } }),
      object({ n: { type: 'integer' }, extra: { type: 'string' } }),
    );
    expect(diff.breaks).toEqual([]);
    expect(changes(diff.compatible)).toEqual(['output.properties.extra: added']);
  });
});

describe('the version a breaking change needs', () => {
  it('is the next major, or the next minor below 1.0', () => {
    expect(nextBreakingVersion('1.3.0')).toBe('2.0.0');
    expect(nextBreakingVersion('0.3.4')).toBe('0.4.0');
    expect(isBreakingStep('1.3.0', '2.0.0-rc.1')).toBe(true);
    expect(isBreakingStep('1.3.0', '1.4.0')).toBe(false);
    expect(isBreakingStep('0.3.4', '0.4.0')).toBe(true);
    expect(isBreakingStep('0.3.4', '0.3.5')).toBe(false);
  });

  it('refuses a breaking minor with CONFLICT and the list of breaks', () => {
    const diff = diffDefinitions('1.3.0', definition(action('get')), definition(action('fetch')));
    expect(() => requireBreakingStep('tools', '1.4.0', diff)).toThrow(
      expect.objectContaining({
        code: 'CONFLICT',
        details: expect.objectContaining({
          constraint: 'breaking_change_needs_major',
          required_version: '2.0.0',
          breaks: diff.breaks,
        }),
      }),
    );
    expect(() => requireBreakingStep('tools', '2.0.0', diff)).not.toThrow();
  });

  it('compares with the highest stable version not removed', () => {
    const v = (version: string, status: VersionRecord['status'] = 'published') =>
      ({ version, status }) as VersionRecord;
    expect(comparedVersion([v('1.3.0'), v('1.4.0', 'removed'), v('2.0.0-beta.1')])).toBe('1.3.0');
    expect(comparedVersion([v('1.3.0', 'deprecated')])).toBe('1.3.0');
    expect(comparedVersion([v('1.0.0-beta.1')])).toBeUndefined();
  });
});
