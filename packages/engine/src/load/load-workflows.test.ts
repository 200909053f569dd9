import { describe, expect, it } from 'vitest';
import { errors, load, warnings, withSteps } from '../test-support/load.js';

const action = (name: string, extra = '') =>
  `      - name: ${name}\n        plugin: http\n        action: get\n${extra}`;

describe('loading workflow files', () => {
  it('applies the defaults: version 1.0.0, inputs not required and of type string', () => {
    const result = load(`${withSteps(action('a'))}    inputs:\n      who: {}\n`);
    expect(errors(result)).toEqual([]);
    const [workflow] = result.workflows;
    expect(workflow!.version).toBe('1.0.0');
    expect(workflow!.inputs['who']).toEqual({ type: 'string', required: false });
  });

  it('treats id and name of a step as the same field', () => {
    const result = load(withSteps('      - id: a\n        plugin: http\n        action: get\n'));
    expect(result.ok).toBe(true);
    expect(result.workflows[0]!.steps[0]!.name).toBe('a');
    expect(result.workflows[0]!.steps[0]!.type).toBe('action');
  });

  it('refuses a step with both name and id', () => {
    const result = load(
      withSteps('      - id: a\n        name: a\n        plugin: http\n        action: get\n'),
    );
    expect(errors(result)).toEqual([
      'workflows[0].steps[0].id: give the step a name or an id, not both (they are the same field)',
    ]);
  });

  it('reports a workflow without steps, or with steps that are not a list, as errors', () => {
    const result = load('workflows:\n  - name: a\n  - name: b\n    steps: 3\n');
    expect(result.ok).toBe(false);
    expect(errors(result).join('\n')).toMatch(/workflows\[0\].*steps/);
    expect(errors(result).join('\n')).toMatch(/workflows\[1\]\.steps/);
  });

  it('reads JSON files too', () => {
    const result = load(
      '{"workflows": [{"name": "j", "steps": [{"name": "a", "plugin": "p", "action": "x"}]}]}',
    );
    expect(result.ok).toBe(true);
  });

  it('requires the top-level workflows key and names what is there instead', () => {
    const result = load('workflow:\n  - name: w\n');
    expect(errors(result)).toEqual([
      'workflow: unknown key "workflow" (did you mean "workflows"?)',
      'missing required key "workflows"',
    ]);
  });

  it('reports an unknown key with a did-you-mean at the key position', () => {
    const result = load(withSteps(action('a', '        retry:\n          backof: fixed\n')));
    expect(result.diagnostics[0]).toMatchObject({
      code: 'unknown_key',
      path: 'workflows[0].steps[0].retry.backof',
      line: 8,
      column: 11,
      file: 'test.yaml',
    });
    expect(result.diagnostics[0]!.message).toBe('unknown key "backof" (did you mean "backoff"?)');
  });

  it('says what was expected and what was found', () => {
    const result = load(withSteps(action('a', '        retry:\n          max_attempts: three\n')));
    expect(result.diagnostics[0]).toMatchObject({
      path: 'workflows[0].steps[0].retry.max_attempts',
      expected: 'an integer',
      found: '"three" (a string)',
      line: 8,
      column: 25,
    });
  });

  it('reports range errors with the bounds', () => {
    const result = load(withSteps(action('a', '        retry: { max_attempts: 0 }\n')));
    expect(errors(result)).toEqual([
      'workflows[0].steps[0].retry.max_attempts: expected an integer ≥ 1 and ≤ 100, found 0',
    ]);
  });

  it('reads triggers by their type and suggests the closest one', () => {
    const result = load(`${withSteps(action('a'))}    triggers:\n      - type: webhok\n`);
    expect(errors(result)).toEqual([
      'workflows[0].triggers[0].type: expected one of "manual", "schedule", "webhook", "event", found "webhok" (a string) (did you mean "webhook"?)',
    ]);
  });

  it('hints to quote a version written as a number', () => {
    const result = load('workflows:\n  - name: w\n    version: 1.0\n    steps:\n' + action('a'));
    expect(errors(result)[0]).toContain('found 1 (a number) (quote it to make it a string)');
  });

  it('reports every error of the file at once, in file order', () => {
    const result = load(
      'workflows:\n  - name: a\n    verison: 2\n    steps: []\n  - name: b\n    steps:\n      - plugin: x\n        action: y\n        timeout: -1\n',
    );
    expect(errors(result)).toEqual([
      'workflows[0].verison: unknown key "verison" (did you mean "version"?)',
      'workflows[0].steps: expected at least 1 item, found 0',
      'workflows[1].steps[0]: missing required key "name" (or "id"): every step needs an identifier',
      'workflows[1].steps[0].timeout: expected an integer ≥ 1 and ≤ 604800, found -1',
    ]);
  });

  it('selects one workflow by name and suggests a close name when it is unknown', () => {
    const file = `workflows:\n  - name: alpha\n    steps:\n${action('a')}  - name: beta\n    steps:\n${action('b')}`;
    expect(load(file, { workflow: 'beta' }).workflows.map((w) => w.name)).toEqual(['beta']);
    const missing = load(file, { workflow: 'alpah' });
    expect(missing.ok).toBe(false);
    expect(errors(missing)).toEqual([
      'no workflow named "alpah" in this file (did you mean "alpha"?); it has: alpha, beta',
    ]);
  });

  it('refuses two workflows of the same name', () => {
    const file = `workflows:\n  - name: a\n    steps:\n${action('x')}  - name: a\n    steps:\n${action('y')}`;
    expect(errors(load(file))).toEqual([
      'workflows[1].name: another workflow of this file is named "a"',
    ]);
  });

  it('returns no workflows when there is any error, but keeps warnings when there is none', () => {
    const result = load(
      `${withSteps(action('a'))}    inputs:\n      x: { required: true, default: 'a' }\n`,
    );
    expect(result.ok).toBe(true);
    expect(warnings(result)).toEqual([
      'workflows[0].inputs.x.required: a required input never uses its default; drop one of them',
    ]);
  });
});
