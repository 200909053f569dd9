import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  InMemorySpanExporter,
  startTelemetry,
  type ReadableSpan,
  type Telemetry,
} from '@weft/telemetry/setup';
import { AiSdkBackend } from '../backends/ai-sdk/backend.js';
import { agentAt, agentWorkflow, CrmInvoker, runAgents } from '../test-support/harness.js';

// Model turns as GenAI spans: the runner's `turns` hook, made into spans by @weft/telemetry.

const exporter = new InMemorySpanExporter();
let telemetry: Telemetry;
beforeAll(() => {
  telemetry = startTelemetry({ serviceName: 'test', traces: { exporter, simple: true } });
});
afterAll(() => telemetry.shutdown());
beforeEach(() => exporter.reset());

const PROMPT_WORDS = 'Who is customer 42';
const ANSWER = 'Customer 42 is Ada Lovelace, on the gold plan.';

function turn(
  content: LanguageModelV3GenerateResult['content'],
  tokens: [number, number],
  finish: 'stop' | 'tool-calls',
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

function run(turns: LanguageModelV3GenerateResult[]) {
  const model = new MockLanguageModelV3({ doGenerate: turns });
  const tracing = telemetry.tracing!;
  return tracing.traceRun(
    { executionId: 'exec-1', workflow: 'support', version: '0.0.0', mode: 'local' },
    undefined,
    () =>
      runAgents(agentWorkflow(), [agentAt('http://127.0.0.1:9/v1', { temperature: 0.2 })], {
        invoker: new CrmInvoker(),
        runner: { backends: [new AiSdkBackend({ model: () => model })], turns: tracing.modelTurns },
        interceptors: () => [tracing.interceptor],
      }).then(({ result }) => result),
  );
}

const byName = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);
const parentName = (spans: ReadableSpan[], span: ReadableSpan) =>
  spans.find((s) => s.spanContext().spanId === span.parentSpanContext?.spanId)?.name;

describe('model turns as GenAI spans', () => {
  it('makes a span `chat <model>` per turn, under the agent step, with usage and no content', async () => {
    const result = await run([
      turn(
        [{ type: 'tool-call', toolCallId: 'c1', toolName: 'crm_lookup', input: '{"id":"42"}' }],
        [120, 15],
        'tool-calls',
      ),
      turn([{ type: 'text', text: ANSWER }], [180, 22], 'stop'),
    ]);
    expect(result.status).toBe('completed');
    const spans = exporter.getFinishedSpans();
    const chats = byName(spans, 'chat scripted-1');
    expect(chats).toHaveLength(2);
    expect(chats[0]!.kind).toBe(2); // CLIENT
    expect(chats[0]!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai-compatible',
      'gen_ai.system': 'openai-compatible',
      'gen_ai.request.model': 'scripted-1',
      'gen_ai.request.temperature': 0.2,
      'gen_ai.agent.name': 'acme/support',
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 15,
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'weft.agent.turn': 1,
    });
    expect(chats[1]!.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 180,
      'gen_ai.usage.output_tokens': 22,
      'gen_ai.response.finish_reasons': ['stop'],
      'weft.agent.turn': 2,
    });
    // The turns and the tool call they asked for are children of the agent step's call.
    const [agentCall] = spans.filter(
      (s) => s.name.startsWith('action ') && parentName(spans, s) === 'step ask',
    );
    expect(agentCall).toBeDefined();
    for (const chat of chats) expect(parentName(spans, chat)).toBe(agentCall!.name);
    const tool = byName(spans, 'action crm.lookup');
    expect(tool).toHaveLength(1);
    expect(parentName(spans, tool[0]!)).toBe(agentCall!.name);
    expect(parentName(spans, agentCall!)).toBe('step ask');
    // Prompt and answer recording is off: no attribute or event holds content.
    const everything = JSON.stringify(
      spans.map((s) => ({ a: s.attributes, e: s.events, n: s.name, st: s.status })),
    );
    expect(everything).not.toContain(PROMPT_WORDS);
    expect(everything).not.toContain('Ada Lovelace');
  });

  it('marks a turn whose model call failed with the error code', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        throw new Error('model down');
      },
    });
    const tracing = telemetry.tracing!;
    const { result } = await runAgents(agentWorkflow(), [agentAt('http://127.0.0.1:9/v1')], {
      runner: {
        backends: [new AiSdkBackend({ model: () => model, maxRetries: 0 })],
        turns: tracing.modelTurns,
      },
    });
    expect(result.status).toBe('failed');
    const [chat] = byName(exporter.getFinishedSpans(), 'chat scripted-1');
    expect(chat!.status).toMatchObject({ code: 2, message: 'BACKEND_ERROR' });
    expect(chat!.attributes['error.type']).toBe('BACKEND_ERROR');
  });
});
