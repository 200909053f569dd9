import { MockLanguageModelV3 } from 'ai/test';
import { guardrailsInterceptor } from '@weft/guardrails';
import { describe, expect, it } from 'vitest';
import { AiSdkBackend } from '../backends/ai-sdk/backend.js';
import { agentAt, agentWorkflow, runAgents } from '../test-support/harness.js';
import { AgentRunner } from './runner.js';

/** Runs the agent step with the content guardrails interceptor made from the runner's options. */
function runWithGuardrails(answer: string, step = '') {
  const model = new MockLanguageModelV3({
    doGenerate: {
      content: [{ type: 'text', text: answer }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: {
        inputTokens: { total: 3, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 4, text: undefined, reasoning: undefined },
      },
      warnings: [],
    },
  });
  const agent = agentAt('http://127.0.0.1:9/v1', { tools: [], guardrails: { piiDetection: true } });
  return runAgents(agentWorkflow(step), [agent], {
    runner: { backends: [new AiSdkBackend({ model: () => model })] },
    interceptors: (runner) => [guardrailsInterceptor(runner.guardrailsOptions())],
  });
}

describe('the runner and the content guardrails interceptor', () => {
  it("checks an agent step's answer against its agent's default guardrails", async () => {
    const { result } = await runWithGuardrails('Write to ada@example.com');
    expect(result.status).toBe('failed');
    expect(result.steps['ask']!.error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'guardrails.piiDetection', found: { email: 1 } },
    });
    expect(JSON.stringify(result.steps['ask']!.error)).not.toContain('ada@example.com');
  });

  it("lets the step's own guardrails override the agent's field by field", async () => {
    const { result } = await runWithGuardrails(
      'Write to ada@example.com',
      '        guardrails: { piiDetection: false }\n',
    );
    expect(result.status).toBe('completed');
    expect(result.steps['ask']!.output).toMatchObject({ text: 'Write to ada@example.com' });
  });

  it('leaves timeLimit of agent steps to the runner, which ends them with its own TIMEOUT', () => {
    const runner = new AgentRunner({
      agents: [],
      actions: () => undefined,
      secrets: { get: async () => undefined },
      backends: [],
    });
    expect(runner.guardrailsOptions().timeLimitOn).toEqual(['action', 'transform']);
  });
});
