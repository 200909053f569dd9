import type { ActionCall, ActionInvoker } from '@weft/core';
import { BackendError } from '@weft/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../definition/schema.js';
import { ScriptedModelServer, type ScriptedReply } from '../testing/scripted-server.js';
import {
  agentAt,
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
    typeof replies === 'function' ? replies : (i: number) => replies[i] ?? replies.at(-1)!;
  server = await new ScriptedModelServer((_, i) => next(i)).start();
  return server;
}

const lookup42: ScriptedReply = {
  toolCalls: [{ name: 'crm_lookup', arguments: '{"id":"42"}' }],
  usage: { prompt_tokens: 100, completion_tokens: 20 },
};
const finalAnswer: ScriptedReply = {
  text: 'Customer 42 is Ada Lovelace.',
  usage: { prompt_tokens: 150, completion_tokens: 30 },
};

/** The `tool_result` blocks of the messages a request sent. */
function toolResults(body: Record<string, unknown>): Record<string, unknown>[] {
  const messages = body['messages'] as { role: string; content: unknown }[];
  return messages.flatMap((m) =>
    Array.isArray(m.content)
      ? (m.content as Record<string, unknown>[]).filter((c) => c['type'] === 'tool_result')
      : [],
  );
}

/** An invoker whose action fails. */
class FailingInvoker implements ActionInvoker {
  readonly calls: ActionCall[] = [];
  async invoke(call: ActionCall): Promise<never> {
    this.calls.push(call);
    throw new BackendError('the CRM is down', { backend: 'crm', original_error: 'down' });
  }
}

/** Both backends against the scripted server speaking the Anthropic Messages API, streamed. */
describe.each(['ai-sdk', 'langchain'] as const)(
  'the %s backend against a streamed Anthropic Messages API',
  (backend) => {
    const anthropic = (url: string, extra: Partial<AgentDefinition> = {}) =>
      agentAt(url, { model: 'anthropic:claude-test', backend, streaming: true, ...extra });

    it('answers a streamed text with its usage counted exactly', async () => {
      const s = await scripted([finalAnswer]);
      const { result } = await runAgents(agentWorkflow(), [anthropic(s.url, { tools: [] })]);
      expect(result.status, JSON.stringify(result.steps['ask']?.error)).toBe('completed');
      expect(result.steps['ask']!.output).toEqual({
        text: 'Customer 42 is Ada Lovelace.',
        tool_calls: [],
        usage: {
          input_tokens: 150,
          output_tokens: 30,
          total_tokens: 180,
          tool_calls: 0,
          cost_usd: 0.00021,
        },
      });
      const [first] = s.requests;
      expect(first!.url).toBe('/v1/messages');
      expect(first!.body['stream']).toBe(true);
      expect(first!.headers['x-api-key']).toBe(SECRET_KEY);
      expect(JSON.stringify(first!.body['system'])).toContain('You answer support questions.');
    });

    it('streams a tool call (input_json_delta), runs it, then answers', async () => {
      const s = await scripted([lookup42, finalAnswer]);
      const invoker = new CrmInvoker();
      const { result } = await runAgents(agentWorkflow(), [anthropic(s.url)], { invoker });
      expect(result.status, JSON.stringify(result.steps['ask']?.error)).toBe('completed');
      expect(result.steps['ask']!.output).toEqual({
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
      expect(invoker.calls.map((c) => c.input)).toEqual([{ id: '42' }]);
      const tools = s.requests[0]!.body['tools'] as { name: string; input_schema: unknown }[];
      expect(tools[0]).toMatchObject({ name: 'crm_lookup', input_schema: { required: ['id'] } });
      const [result1] = toolResults(s.requests[1]!.body);
      expect(result1).toMatchObject({ tool_use_id: 'toolu_1_0' });
      expect(result1!['is_error']).toBeFalsy();
      expect(JSON.stringify(result1!['content'])).toContain('Ada Lovelace');
    });

    it('answers structured data with output_schema from a streamed answer', async () => {
      const s = await scripted([
        {
          text: '{"name":"Ada","plan":"gold"}',
          usage: { prompt_tokens: 10, completion_tokens: 8 },
        },
      ]);
      const output_schema = {
        type: 'object',
        properties: { name: { type: 'string' }, plan: { type: 'string' } },
        required: ['name', 'plan'],
        additionalProperties: false,
      };
      const { result } = await runAgents(agentWorkflow(), [
        anthropic(s.url, { tools: [], output_schema }),
      ]);
      expect(result.status, JSON.stringify(result.steps['ask']?.error)).toBe('completed');
      expect(result.steps['ask']!.output).toMatchObject({
        data: { name: 'Ada', plan: 'gold' },
        usage: { input_tokens: 10, output_tokens: 8 },
      });
      // Both ask for the schema through the Messages API's structured outputs.
      expect(s.requests[0]!.body['output_config']).toMatchObject({
        format: { type: 'json_schema', schema: { required: ['name', 'plan'] } },
      });
    });

    it('refuses a streamed answer past the response limit with a clear error', async () => {
      const s = await scripted([{ text: 'a'.repeat(3 * 1024 * 1024) }]);
      const { result } = await runAgents(agentWorkflow(), [anthropic(s.url, { tools: [] })], {
        runner: { maxResponseBytes: 1024 * 1024 },
      });
      expect(result.status).toBe('failed');
      expect(result.steps['ask']!.error).toMatchObject({
        code: 'BACKEND_ERROR',
        details: { limit_bytes: 1024 * 1024 },
      });
      expect(result.steps['ask']!.error!.message).toContain('larger than the limit');
    });

    for (const streaming of [true, false]) {
      it(`marks the tool_result of a failed or refused tool call is_error (${streaming ? 'streamed' : 'not streamed'})`, async () => {
        const s = await scripted([
          {
            toolCalls: [
              { name: 'crm_lookup', arguments: '{"id":"42"}' },
              { name: 'crm_lookup', arguments: '{"id":42}' },
            ],
          },
          { text: 'The CRM is down.' },
        ]);
        const invoker = new FailingInvoker();
        const { result } = await runAgents(agentWorkflow(), [anthropic(s.url, { streaming })], {
          invoker,
        });
        expect(result.status, JSON.stringify(result.steps['ask']?.error)).toBe('completed');
        expect(invoker.calls).toHaveLength(1);
        const results = toolResults(s.requests[1]!.body);
        expect(results.map((r) => [r['tool_use_id'], r['is_error']])).toEqual([
          ['toolu_1_0', true],
          ['toolu_1_1', true],
        ]);
        const text = JSON.stringify(results);
        expect(text).toContain('BACKEND_ERROR: the CRM is down');
        expect(text).toContain('VALIDATION: invalid arguments for crm_lookup: /id must be string');
      });
    }

    it('sends streamed tool arguments that are not JSON back to the model, never running them', async () => {
      const s = await scripted([
        { toolCalls: [{ name: 'crm_lookup', arguments: '{"id": "4' }] },
        { text: 'Sorry.' },
      ]);
      const invoker = new CrmInvoker();
      const { result } = await runAgents(agentWorkflow(), [anthropic(s.url)], { invoker });
      expect(result.status, JSON.stringify(result.steps['ask']?.error)).toBe('completed');
      expect(invoker.calls).toHaveLength(0);
      const [refused] = toolResults(s.requests[1]!.body);
      expect(refused).toMatchObject({ tool_use_id: 'toolu_1_0', is_error: true });
      expect(result.steps['ask']!.output).toMatchObject({
        text: 'Sorry.',
        tool_calls: [{ name: 'crm_lookup', error: { code: 'VALIDATION' } }],
      });
    });

    it('retries a 529 and a 429 of the Messages API, then streams the answer', async () => {
      const s = await scripted([
        { status: 529, headers: { 'retry-after-ms': '1' } },
        { status: 429, headers: { 'retry-after-ms': '1' } },
        finalAnswer,
      ]);
      const { result } = await runAgents(agentWorkflow(), [anthropic(s.url, { tools: [] })]);
      expect(result.status, JSON.stringify(result.steps['ask']?.error)).toBe('completed');
      expect(s.requests).toHaveLength(3);
      expect(result.steps['ask']!.output).toMatchObject({ text: 'Customer 42 is Ada Lovelace.' });
    });
  },
);
