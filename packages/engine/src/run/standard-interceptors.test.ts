import { describe, expect, it } from 'vitest';
import { TestInvoker } from '../test-support/invoker.js';
import { load } from '../test-support/load.js';
import type { RunInterceptor } from './interceptors.js';
import { runWorkflow } from './run-workflow.js';
import { standardInterceptors } from './standard-interceptors.js';

/** An interceptor that logs its name on each invocation, and answers it when `answer` is set. */
function named(name: string, log: string[], answer?: unknown): RunInterceptor {
  return {
    name,
    invoke: (call, next) => {
      log.push(name);
      return answer === undefined ? next(call) : Promise.resolve({ output: answer });
    },
  };
}

describe('standardInterceptors', () => {
  it('orders every part, outermost first', () => {
    const log: string[] = [];
    const parts = {
      metrics: named('metrics', log),
      usage: named('usage', log),
      mocks: named('mocks', log),
      guardrails: named('guardrails', log),
      stepPermissions: named('stepPermissions', log),
      tracing: named('tracing', log),
    };
    expect(standardInterceptors(parts).map((i) => i.name)).toEqual([
      'tracing',
      'stepPermissions',
      'guardrails',
      'mocks',
      'usage',
      'metrics',
    ]);
  });

  it('leaves out the parts a run does not have', () => {
    const log: string[] = [];
    const chain = standardInterceptors({
      tracing: undefined,
      guardrails: named('guardrails', log),
      metrics: named('metrics', log),
    });
    expect(chain.map((i) => i.name)).toEqual(['guardrails', 'metrics']);
    expect(standardInterceptors({})).toEqual([]);
  });

  it('counts only what reaches an invoker: a mocked answer passes guardrails, not metrics', async () => {
    const loaded = load(`workflows:
  - name: w
    steps:
      - { name: a, plugin: p, action: x }
`);
    if (!loaded.ok) throw new Error('the workflow does not load');
    const log: string[] = [];
    const invoker = new TestInvoker({ 'p.x': () => 'real' });
    const interceptors = standardInterceptors({
      tracing: named('tracing', log),
      guardrails: named('guardrails', log),
      mocks: named('mocks', log, 'mocked'),
      metrics: named('metrics', log),
    });
    const result = await runWorkflow(loaded.workflows[0]!, {}, { invoker, interceptors });
    expect(result.steps['a']!.output).toBe('mocked');
    expect(log).toEqual(['tracing', 'guardrails', 'mocks']);
  });
});
