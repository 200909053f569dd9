import { describe, expect, it } from 'vitest';
import { parseSse, type SseMessage } from './sse.js';

const bytes = (text: string) => new TextEncoder().encode(text);

async function parse(chunks: string[], retries: number[] = []): Promise<SseMessage[]> {
  async function* body() {
    for (const chunk of chunks) yield bytes(chunk);
  }
  const messages: SseMessage[] = [];
  for await (const m of parseSse(body(), (ms) => retries.push(ms))) messages.push(m);
  return messages;
}

describe('parseSse', () => {
  it('parses ids, event names, multi-line data, comments and CRLF line ends', async () => {
    const retries: number[] = [];
    const messages = await parse(
      [
        ': comment\r\nid: 7\r\nevent: step.completed\r\ndata: a\r\n',
        'data: b\r\n\r\nretry: 50\nid: 8\ndata: c\n\n',
      ],
      retries,
    );
    expect(messages).toEqual([
      { id: '7', event: 'step.completed', data: 'a\nb' },
      { id: '8', event: undefined, data: 'c' },
    ]);
    expect(retries).toEqual([50]);
  });

  it('keeps a CRLF split between two chunks as one line end', async () => {
    const messages = await parse(['id: 1\r', '\ndata: a\r', '\ndata: b\r\n\r', '\n']);
    expect(messages).toEqual([{ id: '1', event: undefined, data: 'a\nb' }]);
  });

  it('decodes a UTF-8 character split between two chunks', async () => {
    const whole = bytes('data: "é"\n\n');
    async function* body() {
      yield whole.slice(0, 8);
      yield whole.slice(8);
    }
    const messages: SseMessage[] = [];
    for await (const m of parseSse(body())) messages.push(m);
    expect(messages.map((m) => m.data)).toEqual(['"é"']);
  });

  it('drops an event the stream ends in the middle of', async () => {
    expect(await parse(['data: whole\n\ndata: half'])).toEqual([
      { id: undefined, event: undefined, data: 'whole' },
    ]);
  });
});
