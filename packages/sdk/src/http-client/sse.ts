/** One parsed server-sent event. */
export interface SseMessage {
  /** The last `id:` field seen so far in the stream (it carries over to later events). */
  id: string | undefined;
  /** The `event:` field of this event, if any. */
  event: string | undefined;
  /** The `data:` lines joined with newlines. */
  data: string;
}

const NEWLINE = /\r\n|\n|\r/;

/**
 * Parses a `text/event-stream` body (the WHATWG HTML "server-sent events" format): `id:`,
 * `event:` and `data:` fields, events ended by a blank line, comments ignored, `retry:` reported
 * to `onRetry`. Works on any byte chunks (a fetch reader's, or a Node stream's).
 */
export async function* parseSse(
  body: AsyncIterable<Uint8Array>,
  onRetry: (ms: number) => void = () => {},
): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = '';
  let id: string | undefined;
  let event: string | undefined;
  let data: string[] = [];
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.search(NEWLINE)) >= 0) {
      // A lone \r at the end may be the first half of \r\n: wait for the next chunk.
      if (newline === buffer.length - 1 && buffer.endsWith('\r')) break;
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
      if (line === '') {
        if (data.length > 0) yield { id, event, data: data.join('\n') };
        data = [];
        event = undefined;
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'id') id = value;
      else if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'retry' && /^\d+$/.test(value)) onRetry(Number(value));
    }
  }
}
