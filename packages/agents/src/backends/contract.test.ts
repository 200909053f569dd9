import { afterEach, describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../definition/schema.js';
import type { ModelTurnObserver } from '../run/contract.js';
import { ScriptedModelServer, type ScriptedReply } from '../testing/scripted-server.js';
import {
  agentAt as agentOn,
  agentWorkflow,
  CrmInvoker,
  runAgents,
  SECRET_KEY,
} from '../test-support/harness.js';

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function scripted(replies: ScriptedReply[] | ((i: number) => ScriptedReply)) {
  const next =
    typeof replies === 'function'
      ? replies
      : (_: unknown, i: number) => replies[i] ?? { text: 'done' };
  server = await new ScriptedModelServer((body, i) =>
    next(typeof replies === 'function' ? i : (body as never), i),
  ).start();
  return server;
}

const lookup42 = {
  toolCalls: [{ name: 'crm_lookup', arguments: '{"id":"42"}' }],
  usage: { prompt_tokens: 100, completion_tokens: 20 },
};
const finalAnswer = {
  text: 'Customer 42 is Ada Lovelace.',
  usage: { prompt_tokens: 150, completion_tokens: 30 },
};

/** The agent contract both backends pass, over real HTTP against the scripted server. */
describe.each(['ai-sdk', 'langchain'] as const)(
  'the %s backend against an OpenAI-compatible server',
  (backend) => {
    const agentAt = (url: string, extra: Partial<AgentDefinition> = {}) =>
      agentOn(url, { backend, ...extra });

    for (const streaming of [false, true]) {
      it(`runs a tool through the invoker and answers with text, tool calls and usage (${streaming ? 'streamed' : 'not streamed'})`, async () => {
        const s = await scripted([lookup42, finalAnswer]);
        const invoker = new CrmInvoker();
        const { result, events } = await runAgents(
          agentWorkflow(),
          [agentAt(s.url, { streaming })],
          {
            invoker,
          },
        );
        expect(result.status).toBe('completed');
        const ask = result.steps['ask']!;
        expect(ask.output).toEqual({
          text: 'Customer 42 is Ada Lovelace.',
          tool_calls: [
            {
              name: 'crm_lookup',
              input: { id: '42' },
              output: { id: '42', name: 'Ada Lovelace', plan: 'gold' },
            },
          ],
          usage: {
            input_tokens: 250,
            output_tokens: 50,
            total_tokens: 300,
            tool_calls: 1,
            cost_usd: 0.00035,
          },
        });
        expect(ask.usage).toEqual({
          input_tokens: 250,
          output_tokens: 50,
          total_tokens: 300,
          tool_calls: 1,
          cost_usd: 0.00035,
        });
        expect(result.steps['after']!.output).toEqual({ text: 'Customer 42 is Ada Lovelace.' });
        // The tool ran through the invoker, as an action step would, with its own idempotency key.
        expect(invoker.calls.map((c) => [c.action, c.input, c.context.idempotencyKey])).toEqual([
          ['lookup', { id: '42' }, 'exec-1/ask/tools/1'],
        ]);
        // The model got the action's input schema as the tool's parameters, and the key.
        const first = s.requests[0]!;
        expect(first.headers['authorization']).toBe(`Bearer ${SECRET_KEY}`);
        const tools = first.body['tools'] as { function: { name: string; parameters: unknown } }[];
        expect(tools[0]!.function.name).toBe('crm_lookup');
        expect(tools[0]!.function.parameters).toMatchObject({ required: ['id'] });
        if (streaming) expect(first.body['stream_options']).toEqual({ include_usage: true });
        const user = JSON.stringify((first.body['messages'] as unknown[])[1]);
        expect(user).toContain('Who is customer 42?');
        expect(user).toContain('\\"customer\\":\\"42\\"');
        // Progress per turn and per tool call: names and usage, never the answer, never the key.
        const progress = events.filter((e) => e.type === 'step.progress');
        expect(progress.map((e) => e.data['message'])).toEqual([
          'tool crm_lookup',
          'turn 1: crm_lookup',
          'turn 2',
        ]);
        const everything = JSON.stringify(events);
        expect(JSON.stringify(progress)).not.toContain('Ada Lovelace is');
        expect(JSON.stringify(progress)).not.toContain('Customer 42 is');
        expect(everything).not.toContain(SECRET_KEY);
        expect(JSON.stringify(result)).not.toContain(SECRET_KEY);
      });
    }

    it('reports each model turn to the turns observer: start with its cap, end with tokens and finish reason', async () => {
      const s = await scripted([lookup42, finalAnswer]);
      const seen: unknown[] = [];
      const turns: ModelTurnObserver = {
        turnStarted(start) {
          seen.push({ start });
          return (end) => seen.push({ end });
        },
      };
      const { result } = await runAgents(agentWorkflow(), [agentAt(s.url)], {
        invoker: new CrmInvoker(),
        runner: { turns },
      });
      expect(result.steps['ask']?.error).toBeUndefined();
      expect(result.status).toBe('completed');
      const start = (turn: number) => ({
        start: expect.objectContaining({ turn, provider: 'openai-compatible' }),
      });
      expect(seen).toEqual([
        start(1),
        { end: { inputTokens: 100, outputTokens: 20, finishReason: expect.any(String) } },
        start(2),
        { end: { inputTokens: 150, outputTokens: 30, finishReason: expect.any(String) } },
      ]);
      expect(JSON.stringify(seen)).not.toContain('Ada Lovelace');
    });

    it('answers structured data with output_schema, after a tool call', async () => {
      const s = await scripted([
        lookup42,
        { text: '{"name":"Ada Lovelace","plan":"gold"}', usage: finalAnswer.usage },
      ]);
      const output_schema = {
        type: 'object',
        properties: { name: { type: 'string' }, plan: { type: 'string' } },
        required: ['name', 'plan'],
        additionalProperties: false,
      };
      const { result } = await runAgents(agentWorkflow(), [agentAt(s.url, { output_schema })]);
      expect(result.status).toBe('completed');
      expect(result.steps['ask']!.output).toMatchObject({
        data: { name: 'Ada Lovelace', plan: 'gold' },
        tool_calls: [{ name: 'crm_lookup', input: { id: '42' } }],
        usage: { input_tokens: 250, output_tokens: 50, tool_calls: 1 },
      });
      // The model was asked for JSON on the turn that answered.
      const format = s.requests[1]!.body['response_format'] as { type: string };
      expect(format.type).toMatch(/^json_/);
    });

    it('fails with BACKEND_ERROR when the structured answer is not JSON', async () => {
      const s = await scripted([{ text: 'Ada, I think' }]);
      const output_schema = { type: 'object', properties: { name: { type: 'string' } } };
      const { result } = await runAgents(agentWorkflow(), [
        agentAt(s.url, { output_schema, tools: [] }),
      ]);
      expect(result.steps['ask']!.error).toMatchObject({
        code: 'BACKEND_ERROR',
        details: { backend },
      });
    });

    it('sends the temperature, and no key to a server without api_key_secret', async () => {
      const s = await scripted([finalAnswer]);
      const agent = agentAt(s.url, { tools: [], temperature: 0.3 });
      delete agent.api_key_secret;
      const { result } = await runAgents(agentWorkflow(), [agent]);
      expect(result.status).toBe('completed');
      expect(s.requests[0]!.headers['authorization']).toBeUndefined();
      expect(s.requests[0]!.body['temperature']).toBe(0.3);
    });

    it('retries 500 and 429 answers (honouring retry-after-ms) and then succeeds', async () => {
      const s = await scripted([
        { status: 500, headers: { 'retry-after-ms': '1' } },
        { status: 429, headers: { 'retry-after-ms': '1' } },
        finalAnswer,
      ]);
      const { result } = await runAgents(agentWorkflow(), [agentAt(s.url, { tools: [] })]);
      expect(result.status).toBe('completed');
      expect(s.requests).toHaveLength(3);
    });

    it('fails with BACKEND_ERROR once the retries are spent, without the key in the error', async () => {
      const s = await scripted(() => ({ status: 429, headers: { 'retry-after-ms': '1' } }));
      const { result } = await runAgents(agentWorkflow(), [agentAt(s.url, { tools: [] })], {
        backend: { maxRetries: 1 },
      });
      expect(result.status).toBe('failed');
      const error = result.steps['ask']!.error!;
      expect(error).toMatchObject({
        code: 'BACKEND_ERROR',
        details: { backend, status: 429 },
      });
      expect(s.requests).toHaveLength(2);
      expect(JSON.stringify(result)).not.toContain(SECRET_KEY);
    });

    it('sends malformed, invalid and unknown tool calls back to the model as tool errors, never running them', async () => {
      const s = await scripted([
        { toolCalls: [{ name: 'crm_lookup', arguments: '{"id":' }] },
        { toolCalls: [{ name: 'crm_lookup', arguments: '{"id":42}' }] },
        { toolCalls: [{ name: 'drop_tables', arguments: '{}' }] },
        finalAnswer,
      ]);
      const invoker = new CrmInvoker();
      const { result } = await runAgents(agentWorkflow(), [agentAt(s.url)], { invoker });
      expect(result.status).toBe('completed');
      expect(invoker.calls).toHaveLength(0);
      const calls = (
        result.steps['ask']!.output as { tool_calls: { name: string; error?: { code: string } }[] }
      ).tool_calls;
      expect(calls.map((c) => [c.name, c.error?.code])).toEqual([
        ['crm_lookup', 'VALIDATION'],
        ['crm_lookup', 'VALIDATION'],
        ['drop_tables', 'VALIDATION'],
      ]);
      // Each error went back to the model as the tool's result.
      const toolMessages = (i: number) =>
        (s.requests[i]!.body['messages'] as { role: string; content: string }[]).filter(
          (m) => m.role === 'tool',
        );
      expect(JSON.stringify(toolMessages(2))).toContain('must be string');
      expect(JSON.stringify(toolMessages(3))).toContain('drop_tables');
    });

    it('stops a model that never stops calling tools at max_steps', async () => {
      const s = await scripted(() => lookup42);
      const invoker = new CrmInvoker();
      const { result } = await runAgents(agentWorkflow(), [agentAt(s.url, { max_steps: 3 })], {
        invoker,
      });
      expect(result.status).toBe('failed');
      expect(result.steps['ask']!.error).toMatchObject({
        code: 'VALIDATION',
        details: { field: 'agent.max_steps', constraint: 'max_steps', limit: 3 },
      });
      expect(s.requests).toHaveLength(3);
      expect(invoker.calls).toHaveLength(3);
    });

    it('refuses a 50 MB answer at the response limit with a clear error', async () => {
      const s = await scripted(() => ({ bytes: 50 * 1024 * 1024 }));
      const { result } = await runAgents(agentWorkflow(), [agentAt(s.url, { tools: [] })], {
        runner: { maxResponseBytes: 1024 * 1024 },
      });
      expect(result.status).toBe('failed');
      expect(result.steps['ask']!.error).toMatchObject({
        code: 'BACKEND_ERROR',
        details: { limit_bytes: 1024 * 1024 },
      });
      expect(s.requests).toHaveLength(1);
    });

    it('refuses the tool call past maxToolCalls even within one turn', async () => {
      const s = await scripted([
        {
          toolCalls: [
            { name: 'crm_lookup', arguments: '{"id":"1"}' },
            { name: 'crm_lookup', arguments: '{"id":"2"}' },
            { name: 'crm_lookup', arguments: '{"id":"3"}' },
          ],
        },
        finalAnswer,
      ]);
      const invoker = new CrmInvoker();
      const { result } = await runAgents(
        agentWorkflow('        guardrails: { maxToolCalls: 2 }\n'),
        [agentAt(s.url)],
        { invoker },
      );
      expect(invoker.calls.map((c) => c.input['id'])).toEqual(['1', '2']);
      expect(result.status).toBe('failed');
      expect(result.steps['ask']!.error).toMatchObject({
        code: 'VALIDATION',
        details: { field: 'guardrails.maxToolCalls', constraint: 'maxToolCalls', limit: 2 },
      });
      expect(s.requests).toHaveLength(1);
    });

    it.each([false, true])(
      'never sends maxTokens as max_tokens, and fails once the turns pass it (streamed: %s)',
      async (streaming) => {
        const s = await scripted([
          lookup42,
          { text: 'long', usage: { prompt_tokens: 150, completion_tokens: 60 } },
        ]);
        const { result } = await runAgents(
          agentWorkflow('        guardrails: { maxTokens: 300 }\n'),
          [agentAt(s.url, { streaming })],
        );
        // A budget over the step's turns, not a cap of one request: the provider's default.
        expect(s.requests.map((r) => r.body['max_tokens'])).toEqual([undefined, undefined]);
        // 120 tokens, then 210: 330 in all, over 300.
        expect(result.status).toBe('failed');
        expect(result.steps['ask']!.error).toMatchObject({
          code: 'VALIDATION',
          details: { field: 'guardrails.maxTokens', constraint: 'maxTokens', used: 330 },
        });
      },
    );

    it("sends the agent's max_output_tokens as each request's max_tokens, whatever maxTokens is", async () => {
      const s = await scripted([lookup42, finalAnswer]);
      const { result } = await runAgents(
        agentWorkflow('        guardrails: { maxTokens: 20000 }\n'),
        [agentAt(s.url, { max_output_tokens: 512 })],
      );
      expect(result.status).toBe('completed');
      expect(s.requests.map((r) => r.body['max_tokens'])).toEqual([512, 512]);
    });

    it('does not make a turn that cannot fit in what maxTokens leaves', async () => {
      const s = await scripted([lookup42, finalAnswer]);
      // Turn 1 uses 120; turn 2 reads at least those 120 again: 240 > 200.
      const { result } = await runAgents(
        agentWorkflow('        guardrails: { maxTokens: 200 }\n'),
        [agentAt(s.url)],
      );
      expect(s.requests).toHaveLength(1);
      expect(result.steps['ask']!.error).toMatchObject({
        details: { field: 'guardrails.maxTokens', constraint: 'maxTokens' },
      });
    });

    it('holds maxTokens over the retries of a step, and reports the usage of every attempt', async () => {
      const s = await scripted([lookup42, { status: 500 }, finalAnswer]);
      const { result } = await runAgents(
        agentWorkflow(
          '        retry: { max_attempts: 2, backoff: fixed, backoff_factor: 0.001 }\n        guardrails: { maxTokens: 1000 }\n',
        ),
        [agentAt(s.url)],
        { backend: { maxRetries: 0 } },
      );
      expect(result.status).toBe('completed');
      // The second attempt starts with the 120 tokens of the first, and sends no cap of its own.
      expect(s.requests[2]!.body['max_tokens']).toBeUndefined();
      expect(result.steps['ask']!.attempts).toBe(2);
      expect(result.steps['ask']!.usage).toMatchObject({
        input_tokens: 250,
        output_tokens: 50,
        tool_calls: 1,
      });
    });

    it('holds maxCost across the steps of an execution', async () => {
      const s = await scripted(() => finalAnswer);
      // 150 input + 30 output tokens at 1 and 2 USD per million: 0.00021 USD per call.
      const workflow = agentWorkflow(
        '        guardrails: { maxCost: 0.0003 }\n' +
          '      - name: again\n        type: agent\n        agent: agent:acme/support@1.2.0\n        input: { prompt: again }\n        guardrails: { maxCost: 0.0003 }\n',
      );
      const { result } = await runAgents(workflow, [agentAt(s.url, { tools: [] })]);
      expect(result.steps['ask']!.status).toBe('success');
      expect(result.steps['again']!.error).toMatchObject({
        code: 'VALIDATION',
        details: { field: 'guardrails.maxCost', constraint: 'maxCost' },
      });
    });

    it('ends a step that runs past timeLimit with TIMEOUT on guardrails.timeLimit', async () => {
      const s = await scripted(() => ({ ...finalAnswer, delayMs: 5_000 }));
      const { result } = await runAgents(agentWorkflow('        guardrails: { timeLimit: 1 }\n'), [
        agentAt(s.url, { tools: [] }),
      ]);
      expect(result.steps['ask']!.error).toMatchObject({
        code: 'TIMEOUT',
        details: { field: 'guardrails.timeLimit', timeout_ms: 1000 },
      });
    });
  },
);

describe('backends', () => {
  it('fails with UNAVAILABLE, the backend and a suggestion for a backend that is not installed', async () => {
    const s = await scripted([finalAnswer]);
    const { result } = await runAgents(agentWorkflow('        backend: crewai\n'), [
      agentOn(s.url),
    ]);
    expect(result.steps['ask']!.error).toMatchObject({
      code: 'UNAVAILABLE',
      details: { backend: 'crewai', suggestion: expect.stringContaining('ai-sdk') },
    });
    expect(s.requests).toHaveLength(0);
  });

  it("takes the step's backend over the agent's", async () => {
    const s = await scripted([{ status: 400 }]);
    const { result } = await runAgents(agentWorkflow('        backend: langchain\n'), [
      agentOn(s.url, { backend: 'ai-sdk', tools: [] }),
    ]);
    expect(result.steps['ask']!.error).toMatchObject({
      code: 'BACKEND_ERROR',
      details: { backend: 'langchain', status: 400 },
    });
  });
});
