import { describe, expect, it } from 'vitest';
import { lexPart } from './lexer.js';
import { errorOf, failure, run } from './test-helpers.js';

describe('literals', () => {
  it('reads single- and double-quoted strings', () => {
    expect(run(`{{ 'single' }}`)).toBe('single');
    expect(run(`{{ "double" }}`)).toBe('double');
    expect(run(`{{ "it's" }}`)).toBe("it's");
  });

  it('decodes every escape', () => {
    expect(run(String.raw`{{ 'a\\b' }}`)).toBe('a\\b');
    expect(run(String.raw`{{ 'it\'s' }}`)).toBe("it's");
    expect(run(String.raw`{{ "say \"hi\"" }}`)).toBe('say "hi"');
    expect(run(String.raw`{{ 'a\nb\tc\rd' }}`)).toBe('a\nb\tc\rd');
    expect(run(String.raw`{{ '\u00e9' }}`)).toBe('é');
    expect(run(String.raw`{{ '\u{1F600}' }}`)).toBe('😀');
  });

  it('rejects unknown and malformed escapes at their position', () => {
    const unknown = failure(String.raw`{{ 'a\qb' }}`);
    expect(unknown.details.constraint).toBe('syntax');
    expect(unknown.offset).toBe(5);
    expect(unknown.message).toMatch(/invalid escape "\\\\q"/);
    expect(failure(String.raw`{{ '\u12' }}`).details.constraint).toBe('syntax');
    expect(failure(String.raw`{{ '\u{110000}' }}`).details.constraint).toBe('syntax');
    expect(failure(String.raw`{{ '\u{zz}' }}`).details.constraint).toBe('syntax');
  });

  it('keeps `}}` inside a string', () => {
    expect(run(`{{ '}}' }}`)).toBe('}}');
    expect(run(`a{{ "x}}y" }}b`)).toBe('ax}}yb');
  });

  it('reports an unterminated string', () => {
    const error = failure(`{{ 'abc }}`);
    expect(error.message).toMatch(/unterminated string/);
    expect(error.offset).toBe(3);
  });

  it('reads integers, decimals and exponents', () => {
    expect(run('{{ 42 }}')).toBe(42);
    expect(run('{{ 3.25 }}')).toBe(3.25);
    expect(run('{{ 1e3 }}')).toBe(1000);
    expect(run('{{ 2.5E-1 }}')).toBe(0.25);
    expect(run('{{ -7 }}')).toBe(-7);
  });

  it('rejects numbers glued to names and numbers too large to represent', () => {
    expect(failure('{{ 12abc }}').message).toMatch(/invalid number "12abc"/);
    expect(failure('{{ 1e999 }}').details.constraint).toBe('range');
  });

  it('reads true, false and null', () => {
    expect(run('{{ true }}')).toBe(true);
    expect(run('{{ false }}')).toBe(false);
    expect(run('{{ null }}')).toBe(null);
  });
});

describe('JavaScript-isms', () => {
  it.each([
    ['{{ inputs.flag && true }}', 'use `and`', 'and'],
    ['{{ inputs.flag || true }}', 'use `or`', 'or'],
    ['{{ !inputs.flag }}', 'use `not`', 'not'],
    ['{{ inputs.count === 3 }}', 'use `==`', '=='],
    ['{{ inputs.count !== 3 }}', 'use `!=`', '!='],
    ['{{ inputs.count = 3 }}', 'use `==` to compare', '=='],
    ['{{ inputs.x ?? 1 }}', 'default', 'default'],
    ['{{ inputs?.x }}', 'default', 'default'],
  ])('explains %s', (source, message, suggestion) => {
    const error = failure(source);
    expect(error.details.constraint).toBe('syntax');
    expect(error.message).toContain(message);
    expect(error.suggestion).toBe(suggestion);
  });

  it('points at the foreign operator', () => {
    const error = failure('{{ inputs.flag && true }}');
    expect(error.offset).toBe(15);
    expect(error.length).toBe(2);
  });

  it('still accepts != and ==', () => {
    expect(run('{{ 1 != 2 }}')).toBe(true);
    expect(run('{{ 1 == 1 }}')).toBe(true);
  });

  it('rejects characters that start no token', () => {
    expect(failure('{{ inputs.count # 1 }}').message).toMatch(/unexpected character "#"/);
    expect(failure('{{ `x` }}').message).toMatch(/quotes/);
  });
});

describe('lexPart', () => {
  it('ends at the first `}}` outside strings and returns the offset after it', () => {
    const source = `x{{ 'a}}' + b }}tail`;
    const { tokens, end } = lexPart(source, 3, 1);
    expect(tokens.map((token) => token.type)).toEqual(['string', 'op', 'name', 'close']);
    expect(source.slice(end)).toBe('tail');
  });

  it('reports an unclosed part at its `{{`', () => {
    const error = errorOf(() => lexPart('ab {{ c', 5, 3));
    expect(error.offset).toBe(3);
    expect(error.message).toMatch(/unclosed/);
  });
});
