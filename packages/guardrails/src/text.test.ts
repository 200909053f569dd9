import { describe, expect, it } from 'vitest';
import { outputText } from './text.js';

describe('outputText', () => {
  it('gives strings, keys and numbers one per line in document order', () => {
    expect(outputText({ a: 'x', b: [1, { c: 'y' }], d: null, e: true }, 'f')).toBe(
      'a\nx\nb\n1\nc\ny\nd\ne',
    );
    expect(outputText('plain', 'f')).toBe('plain');
  });

  it('reads a deeply nested output without overflowing the stack', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(outputText(deep, 'f')).toBe('bottom');
  });

  it('refuses an output with more text than it may read, naming the guardrail', () => {
    expect(() => outputText({ big: 'x'.repeat(101) }, 'guardrails.piiDetection', 100)).toThrow(
      expect.objectContaining({
        code: 'VALIDATION',
        details: { field: 'guardrails.piiDetection', constraint: 'max_text_size', max_chars: 100 },
      }),
    );
  });
});
