import { describe, expect, it } from 'vitest';
import { jsonTextDepth, tooDeepError, yamlCstDepth, type YamlCstToken } from './nesting.js';

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
    const map = (items: NonNullable<YamlCstToken['items']>): YamlCstToken => ({
      type: 'block-map',
      items,
    });
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
