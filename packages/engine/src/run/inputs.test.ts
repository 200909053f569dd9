import { describe, expect, it } from 'vitest';
import { load } from '../test-support/load.js';
import { resolveInputs } from './inputs.js';

const wf = load(`workflows:
  - name: w
    inputs:
      n: { type: integer, required: true }
      f: { type: boolean, default: false }
      color: { enum: [red, green] }
      tags: { type: array }
      label: { type: string }
    steps: [{ name: a, plugin: p, action: x }]
`).workflows[0]!;

describe('resolving run inputs', () => {
  it('coerces CLI strings by the declared type and applies defaults', () => {
    expect(resolveInputs(wf, { n: '42', tags: '["a"]', label: 7 })).toEqual({
      n: 42,
      f: false,
      tags: ['a'],
      label: '7',
    });
  });

  it('reports a missing required input, a wrong type, an enum miss and an unknown input', () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{}, 'inputs.n', 'required'],
      [{ n: '4.5' }, 'inputs.n', 'type'],
      [{ n: 1, color: 'blue' }, 'inputs.color', 'enum'],
      [{ n: 1, colour: 'red' }, 'inputs.colour', 'unknown'],
      [{ n: 1, f: 'yes' }, 'inputs.f', 'type'],
    ];
    for (const [given, field, constraint] of cases) {
      expect(() => resolveInputs(wf, given)).toThrow(
        expect.objectContaining({
          code: 'VALIDATION',
          details: expect.objectContaining({ field, constraint }),
        }),
      );
    }
  });

  it('suggests the declared input closest to an unknown one', () => {
    expect(() => resolveInputs(wf, { n: 1, colr: 'red' })).toThrow(
      'unknown input "colr" (did you mean "color"?)',
    );
  });
});
