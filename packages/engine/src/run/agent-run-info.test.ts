import { describe, expect, it } from 'vitest';
import { pickWorkflow } from './workflow-versions.js';
import { TestInvoker } from '../test-support/invoker.js';
import { load } from '../test-support/load.js';
import type { AgentCall, AgentInvoker } from './agent-call.js';
import type { Invocation } from './interceptors.js';
import { runWorkflow } from './run-workflow.js';

const loaded = load(`workflows:
  - name: parent
    budgets: { maxCost: 5, period: day }
    steps:
      - { name: ask, type: agent, agent: 'agent:acme/helper@^1', input: { prompt: hi } }
      - { name: sub, workflow: child }
  - name: child
    steps:
      - { name: inner, type: agent, agent: 'agent:acme/helper@^1', input: { prompt: hi } }
`);

describe('the run an agent step is in', () => {
  it('names its owner and the workflows of its call chain, whose budgets hold', async () => {
    if (!loaded.ok) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
    const seen: { step: string; owner: string | undefined; workflows: string[] }[] = [];
    const agents: AgentInvoker = {
      async invoke(call: AgentCall) {
        seen.push({
          step: call.context.stepName,
          owner: call.run?.owner,
          workflows: call.run?.workflows.map((w) => w.name) ?? [],
        });
        expect(call.run?.workflows[0]?.budgets).toEqual({ maxCost: 5, period: 'day' });
        return { output: { text: 'ok' } };
      },
    };
    const result = await runWorkflow(
      loaded.workflows[0]!,
      {},
      {
        invoker: new TestInvoker({}),
        agents,
        owner: 'acme',
        resolveWorkflow: (name, version) => pickWorkflow(loaded.workflows, name, version),
      },
    );
    expect(result.status).toBe('completed');
    expect(seen).toEqual([
      { step: 'ask', owner: 'acme', workflows: ['parent'] },
      { step: 'inner', owner: 'acme', workflows: ['parent', 'child'] },
    ]);
  });

  it('keeps the run interceptors see on the invocation (execution id, depth) beside them', async () => {
    if (!loaded.ok) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
    const runs: { id: string; depth: number; owner: unknown }[] = [];
    const result = await runWorkflow(
      loaded.workflows[0]!,
      {},
      {
        executionId: 'e-1',
        invoker: new TestInvoker({}),
        agents: { invoke: async () => ({ output: { text: 'ok' } }) },
        owner: 'acme',
        resolveWorkflow: (name, version) => pickWorkflow(loaded.workflows, name, version),
        interceptors: [
          {
            invoke(call: Invocation, next) {
              const run = call.run as Invocation['run'] & { owner?: string };
              runs.push({ id: run.executionId, depth: run.depth, owner: run.owner });
              return next(call);
            },
          },
        ],
      },
    );
    expect(result.status).toBe('completed');
    expect(runs).toEqual([
      { id: 'e-1', depth: 0, owner: 'acme' },
      { id: 'e-1/sub', depth: 1, owner: 'acme' },
    ]);
  });
});
