import { describe, expect, it } from 'vitest';
import { TestInvoker } from '../test-support/invoker.js';
import { load } from '../test-support/load.js';
import { DryRunInterceptor } from './dry-run.js';
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
    const dry = new DryRunInterceptor({
      mockData: {
        slack: { post: { ok: true } },
        'connector:acme/db@1.0.0': { query: { rows: [1] } },
      },
    });
    const result = await runWorkflow(wf, {}, { invoker: dry.refusing, interceptors: [dry] });
    expect(result.outputs).toEqual({ a: { ok: true }, b: [1] });
  });

  it('answers a step written with a plugin slug from a mock keyed by its connector reference, and the reverse', async () => {
    const dry = new DryRunInterceptor({
      mockConnectors: true,
      mockData: {
        'connector:acme/slack@2.0.0': { post: { ok: 'by ref' } },
        db: { query: { rows: ['by slug'] } },
      },
    });
    const result = await runWorkflow(wf, {}, { invoker: dry.refusing, interceptors: [dry] });
    expect(result.error).toBeUndefined();
    expect(result.outputs).toEqual({ a: { ok: 'by ref' }, b: ['by slug'] });
  });

  it('prefers the key written as the step writes it', async () => {
    const dry = new DryRunInterceptor({
      mockData: {
        'connector:acme/slack@2.0.0': { post: 'by ref' },
        slack: { post: 'by slug' },
        'connector:acme/db@1.0.0': { query: { rows: ['exact'] } },
        db: { query: { rows: ['by slug'] } },
      },
    });
    const result = await runWorkflow(wf, {}, { invoker: dry.refusing, interceptors: [dry] });
    expect(result.outputs).toEqual({ a: 'by slug', b: ['exact'] });
  });

  it('refuses an unmocked action before anything runs when mockConnectors is true', async () => {
    const real = new TestInvoker({ 'slack.post': () => 'real' });
    const dry = new DryRunInterceptor({ mockConnectors: true, mockData: { slack: { post: 1 } } });
    const result = await runWorkflow(wf, {}, { invoker: real, interceptors: [dry] });
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
    const dry = new DryRunInterceptor({ mockData: { slack: { post: 1 } } });
    const result = await runWorkflow(wf, {}, { invoker: real, interceptors: [dry] });
    expect(result.outputs).toEqual({ a: 1, b: ['real'] });
    expect(real.calls.map((c) => c.action)).toEqual(['query']);
  });

  it('refuses an unmocked action before the run when there is nothing real to call', async () => {
    const dry = new DryRunInterceptor({ mockData: { slack: { post: 1 } } });
    const result = await runWorkflow(wf, {}, { invoker: dry.refusing, interceptors: [dry] });
    expect(result.error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'testing.dryRun.mockData.connector:acme/db@1.0.0.query' },
    });
    expect(Object.keys(result.steps)).toEqual([]);
  });

  it('gives every step a fresh copy of its mock', async () => {
    const twice = load(`workflows:
  - name: w
    steps:
      - { name: a, plugin: p, action: get }
      - { name: b, plugin: p, action: get }
`).workflows[0]!;
    const dry = new DryRunInterceptor({ mockData: { p: { get: { list: [1] } } } });
    const result = await runWorkflow(twice, {}, { invoker: dry.refusing, interceptors: [dry] });
    expect(result.steps['a']!.output).toEqual({ list: [1] });
    expect(result.steps['a']!.output).not.toBe(result.steps['b']!.output);
  });
});
