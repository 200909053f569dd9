import { describe, expect, it } from 'vitest';
import { errors, load, warnings, withSteps } from '../test-support/load.js';

const step = (name: string, input: string, extra = '') =>
  `      - name: ${name}\n        plugin: http\n        action: get\n${extra}        input:\n          value: "${input}"\n`;

describe('static checks of templates', () => {
  it('accepts references to declared inputs, earlier steps, env and secrets in action input', () => {
    const result = load(
      `${withSteps(step('a', '{{ inputs.who }}') + step('b', '{{ steps.a.output.x }} {{ env.HOME }} {{ secrets.TOKEN }}'))}    inputs:\n      who: {}\n`,
    );
    expect(errors(result)).toEqual([]);
  });

  it('reports an unknown input with a did-you-mean and its column inside the string', () => {
    const result = load(
      `${withSteps(step('a', 'x {{ inputs.whp }}'))}    inputs:\n      who: {}\n`,
    );
    expect(errors(result)).toEqual([
      'workflows[0].steps[0].input.value: unknown input "whp" (did you mean "who"?)',
    ]);
    expect(result.diagnostics[0]).toMatchObject({ line: 8, column: 24 });
  });

  it('reports syntax errors with the place inside the template', () => {
    const result = load(withSteps(step('a', '{{ inputs.x + }}')));
    expect(result.diagnostics[0]?.code).toBe('template');
    expect(result.diagnostics[0]?.line).toBe(8);
  });

  it('refuses references to unknown, later and own steps', () => {
    const result = load(
      withSteps(
        step('a', '{{ steps.b.output }}') + step('b', '{{ steps.b.output }} {{ steps.c.output }}'),
      ),
    );
    expect(errors(result)).toEqual([
      'workflows[0].steps[0].input.value: step "b" runs after this one',
      'workflows[0].steps[1].input.value: step "b" cannot read its own result',
      'workflows[0].steps[1].input.value: unknown step "c" (did you mean "a"?)',
    ]);
  });

  it('reads parallel children through their block and refuses siblings', () => {
    const steps =
      '      - name: both\n        parallel:\n' +
      '          - { name: x, plugin: p, action: a }\n' +
      "          - { name: y, plugin: p, action: a, input: { v: '{{ steps.both.x.output }}' } }\n" +
      step('after', '{{ steps.both.x.output }} {{ steps.x.output }} {{ steps.both.z.output }}');
    expect(errors(load(withSteps(steps)))).toEqual([
      'workflows[0].steps[0].parallel[1].input.v: "both" is the parallel block this step runs in: it has not finished yet',
      'workflows[0].steps[1].input.value: step "x" runs inside a parallel block: read it as steps.both.x',
      'workflows[0].steps[1].input.value: "both" is a parallel block with children x, y: read one as steps.both.<child>.output (did you mean "x"?)',
    ]);
  });

  it('checks the field read from a step', () => {
    const result = load(
      withSteps(step('a', '') + step('b', '{{ steps.a.outptu }} {{ steps.a.outputs }}')),
    );
    expect(errors(result)).toEqual([
      'workflows[0].steps[1].input.value: steps.a has output, status, error, not "outptu" (did you mean "output"?)',
      'workflows[0].steps[1].input.value: steps.a has output, status, error, not "outputs" (did you mean "output"?)',
    ]);
  });

  it('allows item only in the input of a for_each step', () => {
    const steps =
      "      - name: each\n        plugin: p\n        action: a\n        for_each: '{{ [1] }}'\n".replace(
        '{{ [1] }}',
        '{{ inputs.list }}',
      ) +
      "        condition: '{{ item }}'\n        input: { v: '{{ item.id }}' }\n" +
      step('later', '{{ item }}');
    const result = load(`${withSteps(steps)}    inputs:\n      list: { type: array }\n`);
    expect(errors(result)).toEqual([
      'workflows[0].steps[0].condition: item is only available in the input of a for_each step, not in its condition',
      'workflows[0].steps[1].input.value: item is only available inside for_each (in the input of a step that has for_each)',
    ]);
  });

  it('blocks secrets that would reach outputs, conditions or transforms', () => {
    const steps =
      "      - name: t\n        type: transform\n        input: { v: '{{ secrets.KEY }}' }\n" +
      "      - name: a\n        plugin: p\n        action: x\n        condition: '{{ secrets.FLAG }}'\n";
    const result = load(
      `${withSteps(steps)}    outputs:\n      leak: { value: '{{ secrets.KEY | upper }}' }\n`,
    );
    expect(errors(result)).toEqual([
      'workflows[0].steps[0].input.v: secrets.KEY cannot be used in the input of a transform step: pass secrets only in the input of an action or agent step',
      'workflows[0].steps[1].condition: secrets.FLAG cannot be used in condition: pass secrets only in the input of an action or agent step',
      'workflows[0].outputs.leak.value: secrets.KEY would be exposed in a workflow output; pass secrets only in the input of an action or agent step',
    ]);
  });

  it('requires the trigger that provides trigger.payload or trigger.event', () => {
    const result = load(
      `${withSteps(step('a', '{{ trigger.payload.x }} {{ trigger.event }} {{ trigger.body }}'))}    triggers:\n      - type: manual\n`,
    );
    expect(errors(result)).toEqual([
      'workflows[0].steps[0].input.value: trigger.payload is set by a webhook trigger (the body) or a schedule trigger ({scheduled_at}), and this workflow has neither',
      'workflows[0].steps[0].input.value: trigger.event is only set by an event trigger, and this workflow has none',
      'workflows[0].steps[0].input.value: trigger has payload (webhook) and event (event trigger), not "body"',
    ]);
  });

  it('lets a scheduled workflow read trigger.payload.scheduled_at', () => {
    const result = load(
      `${withSteps(step('a', '{{ trigger.payload.scheduled_at }}'))}    triggers:\n      - type: schedule\n        cron: '0 * * * *'\n`,
    );
    expect(errors(result)).toEqual([]);
  });

  it('lets outputs read any step, but only through the right path', () => {
    const result = load(
      `${withSteps(step('a', ''))}    outputs:\n      x: { value: '{{ steps.a.output.y }}' }\n      z: { value: '{{ steps.nope.output }}' }\n`,
    );
    expect(errors(result)).toEqual(['workflows[0].outputs.z.value: unknown step "nope"']);
  });

  it('warns that input defaults are data, not templates', () => {
    const result = load(
      `${withSteps(step('a', ''))}    inputs:\n      x: { default: '{{ env.HOME }}' }\n`,
    );
    expect(warnings(result)).toEqual([
      'workflows[0].inputs.x.default: input defaults are data: this {{ }} is not evaluated',
    ]);
  });
});
