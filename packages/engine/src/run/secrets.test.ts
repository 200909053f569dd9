import type { StreamEvent } from '@weft/core';
import { describe, expect, it } from 'vitest';
import { TestInvoker } from '../test-support/invoker.js';
import { load } from '../test-support/load.js';
import { runWorkflow } from './run-workflow.js';

const echo = (yaml: string) => {
  const result = load(yaml);
  if (!result.ok) throw new Error(result.diagnostics.map((d) => d.message).join('\n'));
  return result.workflows[0]!;
};

const file = `workflows:
  - name: w
    steps:
      - { name: call, plugin: api, action: echo, input: { key: '{{ secrets.API_KEY }}' } }
    outputs:
      leaked: { value: '{{ steps.call.output }}' }
`;

describe('secrets at run time', () => {
  it('passes the secret to the action and blocks an output that carries it back', async () => {
    const invoker = new TestInvoker({
      'api.echo': (input) => ({ echoed: `key=${String(input['key'])}` }),
    });
    const events: StreamEvent[] = [];
    const result = await runWorkflow(
      echo(file),
      {},
      {
        invoker,
        environment: { API_KEY: 'sk-live-12345' },
        onEvent: (e) => events.push(e),
      },
    );
    expect(invoker.calls[0]!.input).toEqual({ key: 'sk-live-12345' });
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'outputs.leaked', constraint: 'no_secrets' },
    });
    expect(result.outputs).toEqual({});
    expect(JSON.stringify(result)).not.toContain('sk-live-12345');
    expect(JSON.stringify(events)).not.toContain('sk-live-12345');
    expect(result.steps['call']!.output).toEqual({ echoed: 'key=***' });
  });

  it('also catches the base64 and hex forms of a secret', async () => {
    for (const encode of [
      (s: string) => Buffer.from(s).toString('base64'),
      (s: string) => Buffer.from(s).toString('hex'),
    ]) {
      const invoker = new TestInvoker({
        'api.echo': (input) => ({ v: encode(String(input['key'])) }),
      });
      const result = await runWorkflow(
        echo(file),
        {},
        { invoker, environment: { API_KEY: 'sk-live-12345' } },
      );
      expect(result.error?.details).toMatchObject({ field: 'outputs.leaked' });
    }
  });

  it('refuses to start when a secret is not set, before any step runs', async () => {
    const invoker = new TestInvoker({ 'api.echo': () => ({}) });
    const result = await runWorkflow(echo(file), {}, { invoker, environment: {} });
    expect(invoker.calls).toHaveLength(0);
    expect(result.error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'secrets.API_KEY', constraint: 'required' },
    });
  });

  it('keeps an input that looks like a template as literal data', async () => {
    const wf = echo(`workflows:
  - name: w
    inputs: { q: {} }
    steps:
      - { name: t, type: transform, input: { q: '{{ inputs.q }}' } }
    outputs: { q: { value: '{{ steps.t.output.q }}' } }
`);
    const result = await runWorkflow(
      wf,
      { q: '{{ secrets.API_KEY }}' },
      {
        invoker: new TestInvoker({}),
        environment: { API_KEY: 'sk-live-12345' },
      },
    );
    expect(result.outputs).toEqual({ q: '{{ secrets.API_KEY }}' });
  });
});

describe('the input a step record shows', () => {
  it('shows every value a template read from secrets as ***, however transformed', async () => {
    const workflow = echo(`workflows:
  - name: w
    inputs:
      city: { type: string, required: true }
      items: { type: array, required: true }
    steps:
      - name: call
        plugin: api
        action: echo
        input:
          city: '{{ inputs.city }}'
          auth: 'Bearer {{ secrets.API_KEY | upper }}'
          nested: ['{{ secrets.API_KEY }}', 'plain']
      - { name: shape, type: transform, input: { city: '{{ inputs.city }}' } }
      - name: each
        plugin: api
        action: echo
        for_each: '{{ inputs.items }}'
        input: { n: '{{ item }}', key: '{{ secrets.API_KEY }}' }
`);
    const events: StreamEvent[] = [];
    const invoker = new TestInvoker({ 'api.echo': () => ({ ok: true }) });
    const result = await runWorkflow(
      workflow,
      { city: 'Berlin', items: [1, 2] },
      { invoker, environment: { API_KEY: 'sk-live-12345' }, onEvent: (e) => events.push(e) },
    );
    expect(result.status).toBe('completed');
    expect(invoker.calls[0]!.input['auth']).toBe('Bearer SK-LIVE-12345');
    expect(result.steps['call']!.input).toEqual({
      city: 'Berlin',
      auth: '***',
      nested: ['***', 'plain'],
    });
    expect(result.steps['shape']!.input).toEqual({ city: 'Berlin' });
    expect(result.steps['each']!.input).toEqual([
      { n: 1, key: '***' },
      { n: 2, key: '***' },
    ]);
    const completed = events.find((e) => e.type === 'step.completed' && e.step_name === 'call');
    expect(completed!.data['input']).toEqual(result.steps['call']!.input);
    for (const text of [JSON.stringify(result), JSON.stringify(events)]) {
      expect(text).not.toContain('sk-live-12345');
      expect(text).not.toContain('SK-LIVE-12345');
    }
  });
});
