import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  agentAt,
  agentWorkflow,
  CrmInvoker,
  runAgents,
  SECRET_KEY,
} from '../../test-support/harness.js';

/** A scripted Anthropic Messages API (`POST /v1/messages`, not streamed) on loopback. */
async function anthropicServer(replies: Record<string, unknown>[]) {
  const seen: { url: string; headers: IncomingHttpHeaders; body: Record<string, unknown> }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      seen.push({ url: req.url ?? '', headers: req.headers, body });
      const reply = replies[seen.length - 1] ?? replies[replies.length - 1]!;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `msg_${seen.length}`,
          type: 'message',
          role: 'assistant',
          model: body['model'],
          stop_sequence: null,
          ...reply,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
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
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'crm_lookup', input: { id: '42' } }],
        stop_reason: 'tool_use',
        usage: { input_tokens: 100, output_tokens: 20 },
      },
      {
        content: [{ type: 'text', text: 'Customer 42 is Ada Lovelace.' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 150, output_tokens: 30 },
      },
    ]);
    close = s.close;
    const invoker = new CrmInvoker();
    const { result } = await runAgents(
      agentWorkflow('        guardrails: { maxTokens: 1000 }\n'),
      [agentAt(`${s.url}/v1`, { model: 'anthropic:claude-test', backend: 'langchain' })],
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
    // maxTokens 1000: the first turn may write all of it, the second what is left after
    // the 120 tokens of the first and the 120 it reads again.
    expect(first!.body['max_tokens']).toBe(1000);
    expect(second!.body['max_tokens']).toBe(760);
    expect(JSON.stringify(second!.body['messages'])).toContain('"tool_use_id":"toolu_1"');
    expect(JSON.stringify(result)).not.toContain(SECRET_KEY);
  });

  it('sends a tool call with invalid arguments back as its tool result, never running it', async () => {
    const s = await anthropicServer([
      {
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'crm_lookup', input: { id: 42 } }],
        stop_reason: 'tool_use',
        usage: { input_tokens: 10, output_tokens: 5 },
      },
      {
        content: [{ type: 'text', text: 'Sorry.' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 10, output_tokens: 5 },
      },
    ]);
    close = s.close;
    const invoker = new CrmInvoker();
    const { result } = await runAgents(
      agentWorkflow(),
      [agentAt(`${s.url}/v1`, { model: 'anthropic:claude-test', backend: 'langchain' })],
      { invoker },
    );
    expect(result.status).toBe('completed');
    expect(invoker.calls).toHaveLength(0);
    const messages = JSON.stringify(s.seen[1]!.body['messages']);
    expect(messages).toContain('"tool_use_id":"toolu_1"');
    expect(messages).toContain('VALIDATION: invalid arguments for crm_lookup: /id must be string');
  });
});
