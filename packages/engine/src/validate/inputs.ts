import type { InputType } from '@weft/core';
import { describeValue, type Path } from '../diagnostics.js';
import type { Reporter } from '../load/reporter.js';
import type { InputDefinition } from '../model.js';

/** True when `value` is of the declared input type. */
export function matchesInputType(type: InputType, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
  }
}

/** Checks that `enum` and `default` agree with `type`, and with each other. */
export function checkInputs(
  inputs: Record<string, InputDefinition>,
  base: Path,
  reporter: Reporter,
): void {
  for (const [name, input] of Object.entries(inputs)) {
    const at = [...base, 'inputs', name];
    input.enum?.forEach((value, index) => {
      if (!matchesInputType(input.type, value)) {
        reporter.error(
          [...at, 'enum', index],
          'type',
          `enum value ${describeValue(value)} is not of the input's type ${input.type}`,
          {
            expected: `a ${input.type}`,
            found: describeValue(value),
          },
        );
      }
    });
    if (input.default === undefined) continue;
    if (!matchesInputType(input.type, input.default)) {
      reporter.error(
        [...at, 'default'],
        'type',
        `default ${describeValue(input.default)} is not of the input's type ${input.type}`,
        {
          expected: `a ${input.type}`,
          found: describeValue(input.default),
        },
      );
    } else if (
      input.enum &&
      !input.enum.some((v) => JSON.stringify(v) === JSON.stringify(input.default))
    ) {
      reporter.error(
        [...at, 'default'],
        'enum',
        `default ${describeValue(input.default)} is not one of the enum values`,
        {
          expected: `one of ${input.enum.map((v) => JSON.stringify(v)).join(', ')}`,
          found: describeValue(input.default),
        },
      );
    }
    if (input.required) {
      reporter.warning(
        [...at, 'required'],
        'unused',
        'a required input never uses its default; drop one of them',
      );
    }
  }
}
