import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModelServer, type ScriptedReply } from '../../testing/scripted-server.js';
import {
  agentAt,
  agentWorkflow,
  CrmInvoker,
  runAgents,
  SECRET_KEY,
} from '../../test-support/harness.js';

/** The scripted server answering the Anthropic Messages API (`POST /v1/messages`, not streamed). */
async function anthropicServer(replies: ScriptedReply[]) {
  const server = await new ScriptedModelServer((_, i) => replies[i] ?? replies.at(-1)!).start();
  return { url: server.url, seen: server.requests, close: () => server.close() };
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe('the langchain backend with an anthropic model', () => {
  it('runs the tool loop over the Messages API with the key, the tool schema and the caps', async () => {
    const s = await anthropicServer([
      {
        toolCalls: [{ name: 'crm_lookup', arguments: '{"id":"42"}' }],
        usage: { prompt_tokens: 100, completion_tokens: 20 },
      },
      {
        text: 'Customer 42 is Ada Lovelace.',
        usage: { prompt_tokens: 150, completion_tokens: 30 },
      },
    ]);
    close = s.close;
    const invoker = new CrmInvoker();
    const { result } = await runAgents(
      agentWorkflow('        guardrails: { maxTokens: 1000 }\n'),
      [agentAt(s.url, { model: 'anthropic:claude-test', backend: 'langchain' })],
      { invoker },
    );
    expect(result.status).toBe('completed');
    expect(result.steps['ask']!.output).toMatchObject({
      text: 'Customer 42 is Ada Lovelace.',
      tool_calls: [{ name: 'crm_lookup', input: { id: '42' } }],
      usage: { input_tokens: 250, output_tokens: 50, tool_calls: 1, cost_usd: 0.00035 },
    });
    expect(invoker.calls.map((c) => c.input)).toEqual([{ id: '42' }]);
    const [first, second] = s.seen;
    expect(first!.url).toBe('/v1/messages');
    expect(first!.headers['x-api-key']).toBe(SECRET_KEY);
    expect(first!.body['system']).toBe('You answer support questions.');
    const tools = first!.body['tools'] as { name: string; input_schema: unknown }[];
    expect(tools[0]).toMatchObject({ name: 'crm_lookup', input_schema: { required: ['id'] } });
    // Anthropic needs a max_tokens: LangChain's default, the same each turn; the step's
    // maxTokens 1000 is a total over the turns, never sent.
    expect(first!.body['max_tokens']).toEqual(second!.body['max_tokens']);
    expect(first!.body['max_tokens']).not.toBe(1000);
    expect(JSON.stringify(second!.body['messages'])).toContain('"tool_use_id":"toolu_1_0"');
    expect(JSON.stringify(result)).not.toContain(SECRET_KEY);
  });

  it('sends a tool call with invalid arguments back as its tool result, never running it', async () => {
    const s = await anthropicServer([
      {
        toolCalls: [{ name: 'crm_lookup', arguments: '{"id":42}' }],
        usage: { prompt_tokens: 10, completion_tokens: 5 },
      },
      { text: 'Sorry.', usage: { prompt_tokens: 10, completion_tokens: 5 } },
    ]);
    close = s.close;
    const invoker = new CrmInvoker();
    const { result } = await runAgents(
      agentWorkflow(),
      [agentAt(s.url, { model: 'anthropic:claude-test', backend: 'langchain' })],
      { invoker },
    );
    expect(result.status).toBe('completed');
    expect(invoker.calls).toHaveLength(0);
    const messages = JSON.stringify(s.seen[1]!.body['messages']);
    expect(messages).toContain('"tool_use_id":"toolu_1_0"');
    expect(messages).toContain('VALIDATION: invalid arguments for crm_lookup: /id must be string');
  });
});
