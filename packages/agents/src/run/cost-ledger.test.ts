import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { AiSdkBackend } from '../backends/ai-sdk/backend.js';
import { agentAt, agentWorkflow, runAgents } from '../test-support/harness.js';
import { CostLedger } from './cost-ledger.js';

const answer: LanguageModelV3GenerateResult = {
  content: [{ type: 'text', text: 'ok' }],
  finishReason: { unified: 'stop', raw: 'stop' },
  usage: {
    inputTokens: { total: 100, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 50, text: undefined, reasoning: undefined },
  },
  warnings: [],
};

describe('CostLedger', () => {
  it('starts an execution from what its journal says it spent, read once per process', async () => {
    const reads: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const ledger = new CostLedger({
      spent: async (id) => {
        reads.push(id);
        await gate;
        return 0.25;
      },
    });
    const both = Promise.all([ledger.ensure('exec-1'), ledger.ensure('exec-1/child/step')]);
    release();
    await both;
    await ledger.ensure('exec-1');
    expect(reads).toEqual(['exec-1']);
    ledger.add('exec-1/child/step', 0.5);
    expect(ledger.spentBy('exec-1')).toBe(0.75);
  });

  it('does not read again once it ran steps of the execution, and reads nothing without a loader', async () => {
    const reads: string[] = [];
    const ledger = new CostLedger({ spent: async (id) => (reads.push(id), 9) });
    ledger.add('exec-2', 0.1);
    await ledger.ensure('exec-2');
    expect(reads).toEqual([]);
    expect(ledger.spentBy('exec-2')).toBe(0.1);
    const bare = new CostLedger();
    await bare.ensure('exec-3');
    expect(bare.spentBy('exec-3')).toBe(0);
  });

  it('forgets the oldest execution past its capacity, and reads it again when it comes back', async () => {
    const reads: string[] = [];
    const ledger = new CostLedger({ capacity: 1, spent: async (id) => (reads.push(id), 1) });
    await ledger.ensure('a');
    await ledger.ensure('b');
    expect(ledger.spentBy('a')).toBe(0);
    await ledger.ensure('a');
    expect(ledger.spentBy('a')).toBe(1);
    expect(reads).toEqual(['a', 'b', 'a']);
  });

  it('holds maxCost for a run taken over from another replica', async () => {
    const model = new MockLanguageModelV3({ doGenerate: [answer] });
    // Pricing 1 and 2 USD per million: a turn costs 0.0002 USD. The journal says 0.0009 spent.
    const costs = new CostLedger({ spent: async () => 0.0009 });
    const { result } = await runAgents(
      agentWorkflow('        guardrails: { maxCost: 0.001 }\n'),
      [agentAt('http://127.0.0.1:9/v1', { tools: [] })],
      { runner: { backends: [new AiSdkBackend({ model: () => model })], costs } },
    );
    expect(result.steps['ask']!.error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'guardrails.maxCost', constraint: 'maxCost' },
    });
    const fresh = new MockLanguageModelV3({ doGenerate: [answer] });
    const { result: alone } = await runAgents(
      agentWorkflow('        guardrails: { maxCost: 0.001 }\n'),
      [agentAt('http://127.0.0.1:9/v1', { tools: [] })],
      { runner: { backends: [new AiSdkBackend({ model: () => fresh })] } },
    );
    expect(alone.steps['ask']!.status).toBe('success');
  });
});
