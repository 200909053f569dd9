import { describe, expect, it } from 'vitest';
import { TestInvoker } from '../test-support/invoker.js';
import { load } from '../test-support/load.js';
import { DryRunInvoker } from './dry-run.js';
import { runWorkflow } from './run-workflow.js';

const wf = load(`workflows:
  - name: w
    steps:
      - { name: a, plugin: slack, action: post }
      - { name: b, connector: 'connector:acme/db@1.0.0', action: query }
    outputs: { a: { value: '{{ steps.a.output }}' }, b: { value: '{{ steps.b.output.rows }}' } }
`).workflows[0]!;

describe('dry runs', () => {
  it('answers actions from mockData by plugin slug and connector reference', async () => {
    const invoker = new DryRunInvoker(
      {
        mockData: {
          slack: { post: { ok: true } },
          'connector:acme/db@1.0.0': { query: { rows: [1] } },
        },
      },
      undefined,
    );
    const result = await runWorkflow(wf, {}, { invoker });
    expect(result.outputs).toEqual({ a: { ok: true }, b: [1] });
  });

  it('refuses an unmocked action before anything runs when mockConnectors is true', async () => {
    const real = new TestInvoker({ 'slack.post': () => 'real' });
    const invoker = new DryRunInvoker(
      { mockConnectors: true, mockData: { slack: { post: 1 } } },
      real,
    );
    const result = await runWorkflow(wf, {}, { invoker });
    expect(result.error).toMatchObject({
      code: 'VALIDATION',
      details: {
        field: 'testing.dryRun.mockData.connector:acme/db@1.0.0.query',
        constraint: 'mocked',
      },
    });
    expect(real.calls).toHaveLength(0);
    expect(Object.keys(result.steps)).toEqual([]);
  });

  it('sends unmocked actions to the real invoker when mockConnectors is false', async () => {
    const real = new TestInvoker({ 'connector:acme/db@1.0.0.query': () => ({ rows: ['real'] }) });
    const invoker = new DryRunInvoker({ mockData: { slack: { post: 1 } } }, real);
    const result = await runWorkflow(wf, {}, { invoker });
    expect(result.outputs).toEqual({ a: 1, b: ['real'] });
  });
});
