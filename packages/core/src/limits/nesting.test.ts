import { describe, expect, it } from 'vitest';
import {
  depthCheckedJson,
  jsonTextDepth,
  tooDeepError,
  yamlCstDepth,
  type YamlCstToken,
} from './nesting.js';

describe('jsonTextDepth', () => {
  it('counts bracket nesting, not brackets inside strings', () => {
    expect(jsonTextDepth('1')).toBe(0);
    expect(jsonTextDepth('{"a":[1,{"b":[]}]}')).toBe(4);
    expect(jsonTextDepth('{"a":"[[[[{{{{\\\\\\"[["}')).toBe(1);
  });

  it('stops one past the limit on a million-deep text without recursing', () => {
    const text = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`;
    expect(jsonTextDepth(text, 64)).toBe(65);
    expect(jsonTextDepth(text)).toBe(1_000_000);
  });
});

describe('yamlCstDepth', () => {
  it('counts collections of documents, block and flow, keys included', () => {
    const map = (items: YamlCstToken['items']): YamlCstToken => ({ type: 'block-map', items });
    const flow: YamlCstToken = { type: 'flow-collection', items: [{ value: map([]) }] };
    const doc: YamlCstToken = { type: 'document', value: map([{ key: flow, value: null }]) };
    expect(yamlCstDepth([doc])).toBe(3);
    expect(yamlCstDepth([doc], 1)).toBe(2);
  });
});

describe('tooDeepError', () => {
  it('is VALIDATION naming the field and the limit', () => {
    const error = tooDeepError('body', 64);
    expect(error.code).toBe('VALIDATION');
    expect(error.details).toEqual({ field: 'body', constraint: 'too_deep', limit: 64 });
    expect(error.message).toContain('limit of 64 levels');
  });
});

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
