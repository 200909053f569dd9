import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicError, answerAnthropic } from './anthropic-messages.js';

/** One answer of the scripted server to one chat completions (or Anthropic messages) request. */
export interface ScriptedReply {
  status?: number;
  headers?: Record<string, string>;
  /** The assistant's text. */
  text?: string;
  /** Tool calls: the name and the raw `arguments` string (JSON or not). */
  toolCalls?: { name: string; arguments: string }[];
  usage?: { prompt_tokens: number; completion_tokens: number };
  finishReason?: string;
  /** Waits this long before answering (a slow model). */
  delayMs?: number;
  /** Answers once this settles: a test holds the model until something happened elsewhere. */
  waitFor?: Promise<unknown>;
  /** A raw body instead (errors); `bytes` sends that many bytes of filler. */
  body?: string;
  bytes?: number;
}

/** A request as the server saw it. */
export interface SeenRequest {
  /** The path (`/v1/chat/completions`, `/v1/messages`). */
  url: string;
  body: Record<string, unknown>;
  headers: IncomingMessage['headers'];
}

/**
 * An OpenAI-compatible `POST /chat/completions` server on loopback that answers from a script
 * (for tests and benchmarks of agents, without a model):
 * `next(body)` gives each reply (streamed as server-sent events when the request says
 * `stream: true`, with a usage chunk when it asks for one). Requests to a path ending in
 * `/messages` get the same replies in the Anthropic Messages API's format, streamed or not
 * (see {@link answerAnthropic}). Records every request.
 */
export class ScriptedModelServer {
  readonly requests: SeenRequest[] = [];
  private server: Server | undefined;
  url = '';

  constructor(public next: (body: Record<string, unknown>, index: number) => ScriptedReply) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 5000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}/v1`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    this.requests.push({ url: req.url ?? '', body, headers: req.headers });
    const anthropic = (req.url ?? '').split('?')[0]!.endsWith('/messages');
    const reply = this.next(body, this.requests.length - 1);
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (reply.waitFor) await reply.waitFor.catch(() => undefined);
    if (res.destroyed) return;
    const status = reply.status ?? 200;
    if (reply.bytes !== undefined) return sendFiller(res, reply.bytes);
    if (reply.body !== undefined || status !== 200) {
      res.writeHead(status, { 'content-type': 'application/json', ...reply.headers });
      const error = anthropic
        ? anthropicError(status)
        : JSON.stringify({ error: { message: `scripted ${status}` } });
      res.end(reply.body ?? error);
      return;
    }
    if (anthropic) return answerAnthropic(res, body, reply, this.requests.length);
    const usage = reply.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
    const usageBody = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
    const toolCalls = (reply.toolCalls ?? []).map((call, i) => ({
      id: `call_${this.requests.length}_${i}`,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
    const finish = reply.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop');
    const base = { id: `cmpl-${this.requests.length}`, created: 1, model: String(body['model']) };
    if (body['stream'] !== true) {
      const message = {
        role: 'assistant',
        content: reply.text ?? null,
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [{ index: 0, message, finish_reason: finish }],
          usage: usageBody,
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (chunk: unknown) => res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    const delta = (d: unknown, finish_reason: string | null = null) =>
      send({
        ...base,
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta: d, finish_reason }],
      });
    delta({ role: 'assistant', content: '' });
    if (reply.text)
      for (const piece of reply.text.match(/.{1,16}/gs) ?? []) delta({ content: piece });
    toolCalls.forEach((call, index) => delta({ tool_calls: [{ index, ...call }] }));
    delta({}, finish);
    const options = body['stream_options'] as { include_usage?: boolean } | undefined;
    if (options?.include_usage)
      send({ ...base, object: 'chat.completion.chunk', choices: [], usage: usageBody });
    res.end('data: [DONE]\n\n');
  }
}

function sendFiller(res: ServerResponse, bytes: number): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  const block = Buffer.alloc(64 * 1024, 'a');
  let left = bytes;
  const write = (): void => {
    while (left > 0) {
      const piece = left >= block.length ? block : block.subarray(0, left);
      left -= piece.length;
      if (!res.write(piece)) {
        res.once('drain', write);
        return;
      }
    }
    res.end();
  };
  res.on('error', () => {});
  write();
}
