import { describe, expect, it } from 'vitest';
import { depthCheckedJson } from './json-body.js';

describe('depthCheckedJson', () => {
  /** What the wrapped parser answered through `done`. */
  function answerOf(parser: ReturnType<typeof depthCheckedJson<unknown>>, text: string) {
    return new Promise<{ error: Error | null; body?: unknown }>((resolve) => {
      parser(undefined, text, (error, body) => resolve({ error, body }));
    });
  }

  it('answers through done for a parser that calls done', async () => {
    const parser = depthCheckedJson<unknown>((_request, text, done) =>
      done(null, JSON.parse(text)),
    );
    expect(await answerOf(parser, '{"a":1}')).toEqual({ error: null, body: { a: 1 } });
  });

  it('answers through done for a parser that returns a promise, and refuses deep text first', async () => {
    const parser = depthCheckedJson<unknown>(async (_request, text) => JSON.parse(text) as unknown);
    expect(await answerOf(parser, '[1]')).toEqual({ error: null, body: [1] });
    expect((await answerOf(parser, '{')).error).toBeInstanceOf(SyntaxError);
    const deep = await answerOf(parser, `${'['.repeat(100)}${']'.repeat(100)}`);
    expect(deep.error).toMatchObject({ code: 'VALIDATION' });
  });
});
