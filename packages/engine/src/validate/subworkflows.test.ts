import { describe, expect, it } from 'vitest';
import { errors, load, warnings } from '../test-support/load.js';

describe('subworkflow checks', () => {
  it('refuses a workflow that calls itself', () => {
    const result = load(
      'workflows:\n  - name: loop\n    steps:\n      - { name: again, workflow: loop }\n',
    );
    expect(errors(result)).toEqual([
      'workflows[0].steps[0].workflow: workflow "loop" calls itself',
    ]);
  });

  it('refuses cycles between the workflows of a file', () => {
    const result = load(
      'workflows:\n  - name: a\n    steps:\n      - { name: s, workflow: b }\n  - name: b\n    steps:\n      - { name: s, workflow: a }\n',
    );
    expect(errors(result)).toEqual([
      'workflows[1].steps[0].workflow: subworkflow calls form a cycle: a → b → a',
    ]);
  });

  it('checks the pinned version, the inputs and the outputs read of a called workflow', () => {
    const result = load(
      'workflows:\n  - name: main\n    steps:\n' +
        "      - { name: call, workflow: child, version: '^2.0', input: { nmae: x } }\n" +
        "      - { name: use, type: transform, input: { v: '{{ steps.call.outputs.totl }}' } }\n" +
        '  - name: child\n    version: 1.4.0\n    inputs:\n      name: { required: true }\n    steps:\n      - { name: s, plugin: p, action: x }\n    outputs:\n      total: { value: "{{ steps.s.output }}" }\n',
    );
    expect(errors(result)).toEqual([
      'workflows[0].steps[0]: workflow "child" needs the input "name"',
      'workflows[0].steps[0].version: workflow "child" in this file is version 1.4.0, which does not match "^2.0"',
      'workflows[0].steps[0].input.nmae: workflow "child" has no input "nmae" (did you mean "name"?)',
      'workflows[0].steps[1].input.v: workflow "child" has no output "totl" (did you mean "total"?)',
    ]);
  });

  it('warns about a called workflow the file does not define, unless it is known', () => {
    const file =
      'workflows:\n  - name: main\n    steps:\n      - { name: call, workflow: elsewhere }\n';
    expect(warnings(load(file))).toEqual([
      'workflows[0].steps[0].workflow: workflow "elsewhere" is not defined in this file; it must be deployed where this runs',
    ]);
    expect(warnings(load(file, { knownWorkflows: ['elsewhere'] }))).toEqual([]);
  });
});
