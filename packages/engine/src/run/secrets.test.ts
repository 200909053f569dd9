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
