import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '@weft/core';
import { delay, TestInvoker } from '../test-support/invoker.js';
import { load } from '../test-support/load.js';
import type { AgentCall, AgentInvoker } from './agent-call.js';
import type { Invocation, RunInterceptor } from './interceptors.js';
import { runWorkflow } from './run-workflow.js';

const agentWorkflow = (() => {
  const result = load(`workflows:
  - name: w
    steps:
      - name: ask
        type: agent
        agent: agent:acme/helper@^1
        input: { prompt: hi }
`);
  if (!result.ok) throw new Error(result.diagnostics.map((d) => d.message).join('\n'));
  return result.workflows[0]!;
})();

/** An agent that calls `p.lookup` twice and answers with what it got. */
const twoToolCalls: AgentInvoker = {
  async invoke(call: AgentCall) {
    expect(call.definition.agent).toBe('agent:acme/helper@^1');
    const a = await call.tools.run({
      target: { kind: 'plugin', slug: 'p' },
      action: 'lookup',
      input: { q: 1 },
      name: 'p_lookup',
    });
    call.report(50, 'called p_lookup', { tool: 'p_lookup' });
    const b = await call.tools.run({
      target: { kind: 'plugin', slug: 'p' },
      action: 'lookup',
      input: { q: 2 },
      name: 'p_lookup',
    });
    return { output: { text: `${a.output} ${b.output}` }, usage: { tool_calls: 2 } };
  },
};

describe('agent tool calls', () => {
  it('run through the invoke hooks as invocations of the agent step, and the action invoker', async () => {
    const keys: string[] = [];
    const invoker = new TestInvoker({
      'p.lookup': (input, context) => {
        keys.push(context.idempotencyKey);
        return `r${input['q'] as number}`;
      },
    });
    const seen: string[] = [];
    const spy: RunInterceptor = {
      invoke(call: Invocation, next) {
        seen.push(
          `${call.step.path} ${call.action} ${call.tool?.name ?? '-'} ${call.tool?.index ?? 0}`,
        );
        return next(call);
      },
    };
    const events: StreamEvent[] = [];
    const result = await runWorkflow(
      agentWorkflow,
      {},
      {
        invoker,
        agents: twoToolCalls,
        interceptors: [spy],
        executionId: 'e1',
        onEvent: (e) => events.push(e),
      },
    );
    expect(result.status).toBe('completed');
    expect(result.steps['ask']!.output).toEqual({ text: 'r1 r2' });
    expect(result.steps['ask']!.usage).toEqual({ tool_calls: 2 });
    expect(seen).toEqual(['ask run - 0', 'ask lookup p_lookup 1', 'ask lookup p_lookup 2']);
    expect(keys).toEqual(['e1/ask/tools/1', 'e1/ask/tools/2']);
    const progress = events.find((e) => e.type === 'step.progress')!;
    expect(progress.data).toEqual({ percent: 50, message: 'called p_lookup', tool: 'p_lookup' });
  });

  it('run on the action invoker without a chain too', async () => {
    const invoker = new TestInvoker({ 'p.lookup': (input) => `r${input['q'] as number}` });
    const result = await runWorkflow(agentWorkflow, {}, { invoker, agents: twoToolCalls });
    expect(result.steps['ask']!.output).toEqual({ text: 'r1 r2' });
    expect(invoker.calls.map((c) => c.action)).toEqual(['lookup', 'lookup']);
  });

  it('abort every parallel tool call of a turn with the run, through one listener on the attempt', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const controller = new AbortController();
    let started = 0;
    let aborted = 0;
    const invoker = new TestInvoker({
      'p.lookup': async (_input, context) => {
        if (++started === 12) setImmediate(() => controller.abort(new Error('stop')));
        try {
          await delay(10_000, context.signal);
        } catch (error) {
          aborted++;
          throw error;
        }
      },
    });
    const twelveAtOnce: AgentInvoker = {
      async invoke(call: AgentCall) {
        await Promise.all(
          Array.from({ length: 12 }, (_, q) =>
            call.tools.run({
              target: { kind: 'plugin', slug: 'p' },
              action: 'lookup',
              input: { q },
              name: 'p_lookup',
            }),
          ),
        );
        return { output: { text: 'never' } };
      },
    };
    try {
      const result = await runWorkflow(
        agentWorkflow,
        {},
        { invoker, agents: twelveAtOnce, signal: controller.signal },
      );
      expect(result.status).not.toBe('completed');
    } finally {
      process.off('warning', onWarning);
    }
    expect(aborted).toBe(12);
    expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
  });
});
