import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '@weft/core';
import { AiSdkBackend } from '../backends/ai-sdk/backend.js';
import { agentAt, agentWorkflow, CrmInvoker, runAgents } from '../test-support/harness.js';

/** A model turn of the AI SDK's mock model. */
function turn(
  content: LanguageModelV3GenerateResult['content'],
  tokens: [number, number],
  finish: 'stop' | 'tool-calls' | 'length' = 'stop',
): LanguageModelV3GenerateResult {
  return {
    content,
    finishReason: { unified: finish, raw: finish },
    usage: {
      inputTokens: {
        total: tokens[0],
        noCache: undefined,
        cacheRead: undefined,
        cacheWrite: undefined,
      },
      outputTokens: { total: tokens[1], text: undefined, reasoning: undefined },
    },
    warnings: [],
  };
}

const call = (id: string, input: string) =>
  ({ type: 'tool-call', toolCallId: id, toolName: 'crm_lookup', input }) as const;

function mockRun(turns: LanguageModelV3GenerateResult[], step = '', extra = {}) {
  const model = new MockLanguageModelV3({ doGenerate: turns });
  const backend = new AiSdkBackend({ model: () => model });
  const invoker = new CrmInvoker();
  return {
    model,
    invoker,
    run: () =>
      runAgents(agentWorkflow(step), [agentAt('http://127.0.0.1:9/v1', extra)], {
        invoker,
        runner: { backends: [backend] },
      }),
  };
}

describe('the agent runner with the AI SDK mock model', () => {
  it('answers with structured data from output_schema', async () => {
    const { run } = mockRun(
      [turn([{ type: 'text', text: '{"name":"Ada","plan":"gold"}' }], [5, 5])],
      '',
      {
        tools: [],
        output_schema: {
          type: 'object',
          properties: { name: { type: 'string' }, plan: { type: 'string' } },
          required: ['name', 'plan'],
        },
      },
    );
    const { result } = await run();
    expect(result.steps['ask']!.output).toMatchObject({ data: { name: 'Ada', plan: 'gold' } });
  });

  it('runs the tool calls of one turn up to maxToolCalls and refuses the next one', async () => {
    const { run, invoker, model } = mockRun(
      [
        turn([call('a', '{"id":"1"}'), call('b', '{"id":"2"}')], [10, 10], 'tool-calls'),
        turn([{ type: 'text', text: 'never asked' }], [10, 10]),
      ],
      '        guardrails: { maxToolCalls: 1 }\n',
    );
    const { result } = await run();
    expect(invoker.calls).toHaveLength(1);
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(result.steps['ask']!.error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'guardrails.maxToolCalls', tool: 'crm_lookup' },
    });
  });

  it('refuses a turn before calling the model when maxTokens leaves nothing for it', async () => {
    const { run, model } = mockRun(
      [
        turn([call('a', '{"id":"1"}')], [40, 10], 'tool-calls'),
        turn([{ type: 'text', text: 'x' }], [1, 1]),
      ],
      '        guardrails: { maxTokens: 100 }\n',
    );
    const { result } = await run();
    // 50 used, the next turn reads at least 50: nothing left.
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(result.steps['ask']!.error).toMatchObject({
      details: { field: 'guardrails.maxTokens' },
    });
  });

  it("merges the agent's guardrails with the step's, field by field", async () => {
    const { run, model } = mockRun(
      [turn([{ type: 'text', text: 'ok' }], [40, 40])],
      '        guardrails: { maxTokens: 1000 }\n',
      { guardrails: { maxTokens: 50, maxToolCalls: 0 } },
    );
    const { result } = await run();
    // 80 tokens: over the agent's 50, within the step's 1000, which wins; neither is a cap.
    expect(result.status).toBe('completed');
    expect(model.doGenerateCalls[0]!.maxOutputTokens).toBeUndefined();
  });

  it('fails closed on maxCost when the agent has no pricing', async () => {
    const { run, model } = mockRun(
      [turn([{ type: 'text', text: 'ok' }], [1, 1])],
      '        guardrails: { maxCost: 1 }\n',
      {
        pricing: undefined,
      },
    );
    const { result } = await run();
    expect(result.steps['ask']!.error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'guardrails.maxCost' },
    });
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it('needs input.prompt', async () => {
    const model = new MockLanguageModelV3({ doGenerate: [] });
    const { loadWorkflowSource } = await import('@weft/engine');
    const workflow = loadWorkflowSource(
      'workflows:\n  - name: w\n    steps:\n      - { name: ask, type: agent, agent: "agent:acme/support@1.2.0", input: { text: hi } }\n',
    ).workflows[0]!;
    const { result } = await runAgents(workflow, [agentAt('http://127.0.0.1:9/v1')], {
      runner: { backends: [new AiSdkBackend({ model: () => model })] },
    });
    expect(result.steps['ask']!.error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'input.prompt' },
    });
  });

  it('answers a dry run from mockData without calling the model', async () => {
    const model = new MockLanguageModelV3({ doGenerate: [] });
    const { loadWorkflowSource } = await import('@weft/engine');
    const workflow = loadWorkflowSource(`workflows:
  - name: w
    steps:
      - { name: ask, type: agent, agent: "agent:acme/support@^1", input: { prompt: hi } }
    testing:
      dryRun:
        enabled: true
        mockData:
          "agent:acme/support@^1":
            run: { text: mocked, tool_calls: [], usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0, tool_calls: 0, cost_usd: 0 } }
`).workflows[0]!;
    const { result } = await runAgents(workflow, [agentAt('http://127.0.0.1:9/v1')], {
      runner: { backends: [new AiSdkBackend({ model: () => model })] },
      dryRun: true,
    });
    expect(result.steps['ask']!.output).toMatchObject({ text: 'mocked' });
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it('asks secretRefusal before the run and again at the step, and never reads a refused secret', async () => {
    const model = new MockLanguageModelV3({ doGenerate: [] });
    const asked: string[] = [];
    const read: string[] = [];
    const refusal = new ValidationError('refused', {
      field: 'agent.api_key_secret',
      constraint: 'policy',
    });
    // Allowed before the run, refused at the step: the step's own check holds.
    const { result } = await runAgents(agentWorkflow(), [agentAt('http://127.0.0.1:9/v1')], {
      runner: {
        backends: [new AiSdkBackend({ model: () => model })],
        secrets: { get: async (name) => void read.push(name) },
        secretRefusal: (agent, secret) => {
          asked.push(`${agent.name}:${secret}`);
          return asked.length > 1 ? refusal : undefined;
        },
      },
    });
    expect(asked).toEqual(['support:MODEL_KEY', 'support:MODEL_KEY']);
    expect(read).toEqual([]);
    expect(model.doGenerateCalls).toHaveLength(0);
    expect(result.steps['ask']!.error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'agent.api_key_secret', constraint: 'policy' },
    });
  });
});
