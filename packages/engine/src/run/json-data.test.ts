import { describe, expect, it } from 'vitest';
import { TestInvoker } from '../test-support/invoker.js';
import { load } from '../test-support/load.js';
import { jsonDataProblem } from './json-data.js';
import { runWorkflow } from './run-workflow.js';

describe('jsonDataProblem', () => {
  it('accepts JSON data, Dates, undefined and values shared by two branches', () => {
    const shared = { a: 1 };
    expect(jsonDataProblem(undefined)).toBeUndefined();
    expect(jsonDataProblem({ a: [1, 'x', null, true, { b: shared }], c: shared })).toBeUndefined();
    expect(jsonDataProblem({ when: new Date(0), gone: undefined })).toBeUndefined();
    expect(jsonDataProblem(Object.create(null) as object)).toBeUndefined();
  });

  it('names where a cycle, a BigInt, a function, a symbol or a class instance is', () => {
    const cyclic: Record<string, unknown> = { items: [{}] };
    (cyclic['items'] as object[])[0] = { owner: cyclic };
    expect(jsonDataProblem(cyclic)).toEqual({
      path: 'output.items[0].owner',
      found: 'a reference back to output (a cycle)',
    });
    expect(jsonDataProblem({ n: 10n })?.path).toBe('output.n');
    expect(jsonDataProblem([() => 1])?.found).toBe('a function');
    expect(jsonDataProblem({ s: Symbol('x') })?.found).toBe('a symbol');
    expect(jsonDataProblem({ m: new Map() })?.found).toContain('an instance of Map');
    expect(jsonDataProblem(10n)?.path).toBe('output');
    // Flat values (no nested object) are checked without the walk: the same answers.
    class Point {
      x = 1;
    }
    expect(jsonDataProblem(new Point())?.found).toBe(
      'an instance of Point (return plain objects and arrays)',
    );
    expect(jsonDataProblem(new Map())?.found).toContain('an instance of Map');
    expect(jsonDataProblem([1, 2n, 3])?.path).toBe('output[1]');
    expect(jsonDataProblem({ a: 1, b: () => 2 })?.path).toBe('output.b');
    expect(jsonDataProblem({ a: 1 }, 0)?.found).toBe('nesting deeper than the limit of 0 levels');
    expect(jsonDataProblem({ a: 1, b: 'x', c: null, d: undefined })).toBeUndefined();
    expect(jsonDataProblem([1, 'x', null, new Date(0)])).toBeUndefined();
  });

  it('refuses nesting past its limit without recursing', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(jsonDataProblem(deep)?.found).toBe('nesting deeper than the limit of 256 levels');
    expect(jsonDataProblem([[[1]]], 2)?.path).toBe('output[0][0]');
  });
});

describe('an action whose output is not JSON data', () => {
  it('fails its step with BACKEND_ERROR naming the step, and the run goes on (secrets read)', async () => {
    const result = load(`workflows:
  - name: w
    steps:
      - { name: loop, plugin: p, action: loop, input: { key: '{{ secrets.TOKEN }}' }, continue_on_error: true }
      - { name: after, type: transform, input: { status: '{{ steps.loop.status }}' } }
    outputs: { status: { value: '{{ steps.after.output.status }}' } }
`);
    if (!result.ok) throw new Error(result.diagnostics.map((d) => d.message).join('\n'));
    const invoker = new TestInvoker({
      'p.loop': () => {
        const output: Record<string, unknown> = { token: 'x' };
        output['self'] = output;
        return output;
      },
    });
    const events: string[] = [];
    const run = await runWorkflow(
      result.workflows[0]!,
      {},
      {
        invoker,
        environment: { TOKEN: 'secret-value-1' },
        onEvent: (event) => events.push(event.type),
      },
    );
    expect(run.status).toBe('completed');
    expect(run.outputs['status']).toBe('failed');
    expect(run.steps['loop']!.error).toMatchObject({
      code: 'BACKEND_ERROR',
      message:
        'step "loop": the output of p.loop is not JSON data: output.self is a reference back to output (a cycle)',
      details: { field: 'output.self', constraint: 'json_data' },
    });
    expect(events).toContain('step.failed');
  });
});
