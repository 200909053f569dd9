import type { ServerResponse } from 'node:http';
import type { ScriptedReply } from './scripted-server.js';

/** A content block of an Anthropic answer. */
type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; arguments: string };

/**
 * Answers one Anthropic Messages API request (`POST .../messages`) from a scripted reply: the
 * text as a `text` block, each tool call as a `tool_use` block (`arguments` is the raw JSON of
 * its input), `usage` as `input_tokens` / `output_tokens`, `finishReason` as `stop_reason`
 * (default `tool_use` with tool calls, else `end_turn`); not streamed, `arguments` must be JSON.
 * With `stream: true`, as server-sent
 * events: `message_start` (the input tokens, and 1 output token, as the API does), `ping`, each
 * block's `content_block_start`, `_delta` (`text_delta`, `input_json_delta`) and `_stop`, then
 * `message_delta` with `stop_reason` and the cumulative output tokens, and `message_stop`.
 */
export async function answerAnthropic(
  res: ServerResponse,
  body: Record<string, unknown>,
  reply: ScriptedReply,
  n: number,
): Promise<void> {
  const usage = reply.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
  const blocks: Block[] = [
    ...(reply.text ? [{ type: 'text' as const, text: reply.text }] : []),
    ...(reply.toolCalls ?? []).map((call, i) => ({
      type: 'tool_use' as const,
      id: `toolu_${n}_${i}`,
      name: call.name,
      arguments: call.arguments,
    })),
  ];
  const stopReason = reply.finishReason ?? (reply.toolCalls?.length ? 'tool_use' : 'end_turn');
  const message = {
    id: `msg_${n}`,
    type: 'message',
    role: 'assistant',
    model: String(body['model']),
    stop_sequence: null,
  };
  if (body['stream'] !== true) {
    let content: unknown[];
    try {
      content = blocks.map((b) =>
        b.type === 'text'
          ? b
          : { type: 'tool_use', id: b.id, name: b.name, input: JSON.parse(b.arguments) as unknown },
      );
    } catch {
      // Only a streamed answer (input_json_delta) can carry arguments that are not JSON.
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(anthropicError(500, 'scripted tool arguments must be JSON when not streamed'));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        ...message,
        content,
        stop_reason: stopReason,
        usage: { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens },
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.on('error', () => {});
  const send = async (data: { type: string } & Record<string, unknown>) => {
    if (res.destroyed) return;
    if (!res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`)) {
      await new Promise<void>((resolve) => {
        res.once('drain', resolve);
        res.once('close', resolve);
      });
    }
  };
  await send({
    type: 'message_start',
    message: {
      ...message,
      content: [],
      stop_reason: null,
      usage: {
        input_tokens: usage.prompt_tokens,
        output_tokens: Math.min(1, usage.completion_tokens),
      },
    },
  });
  await send({ type: 'ping' });
  for (const [index, block] of blocks.entries()) {
    if (block.type === 'text') {
      await send({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const text of pieces(block.text)) {
        await send({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
      }
    } else {
      const { id, name } = block;
      await send({
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id, name, input: {} },
      });
      for (const partial_json of pieces(block.arguments)) {
        await send({
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json },
        });
      }
    }
    await send({ type: 'content_block_stop', index });
  }
  await send({
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: usage.completion_tokens },
  });
  await send({ type: 'message_stop' });
  res.end();
}

/** The error body of the Messages API for a scripted failure status. */
export function anthropicError(status: number, message = `scripted ${status}`): string {
  const type =
    status === 429 ? 'rate_limit_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
  return JSON.stringify({ type: 'error', error: { type, message } });
}

/** A text in streamed pieces: 16 characters each, 64 KiB each for a long text. */
function pieces(text: string): string[] {
  const size = text.length > 65_536 ? 65_536 : 16;
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
