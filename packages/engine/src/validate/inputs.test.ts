import { describe, expect, it } from 'vitest';
import { errors, load, withSteps } from '../test-support/load.js';

const file = (inputs: string) =>
  `${withSteps('      - { name: a, plugin: p, action: x }\n')}    inputs:\n${inputs}`;

describe('input checks', () => {
  it('makes enum and default agree with the type', () => {
    const result = load(
      file(
        "      n: { type: integer, enum: [1, 2, 'three'], default: 1.5 }\n      c: { type: string, enum: [red, green], default: blue }\n      ok: { type: array, default: [1] }\n",
      ),
    );
    expect(errors(result)).toEqual([
      'workflows[0].inputs.n.enum[2]: enum value "three" (a string) is not of the input\'s type integer',
      "workflows[0].inputs.n.default: default 1.5 (a number) is not of the input's type integer",
      'workflows[0].inputs.c.default: default "blue" (a string) is not one of the enum values',
    ]);
  });

  it('refuses input names that templates could not read', () => {
    const result = load(file('      "my input": {}\n'));
    expect(errors(result)).toEqual([
      'workflows[0].inputs["my input"]: invalid key "my input": expected an input name: a letter or _, then letters, digits, _ or -',
    ]);
  });
});
