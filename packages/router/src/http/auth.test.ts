import { describe, expect, it } from 'vitest';
import { constantTimeEqual } from './auth.js';

describe('constantTimeEqual', () => {
  it('is true for the same string only', () => {
    const token = 'a-long-router-token-1234';
    expect(constantTimeEqual(token, token)).toBe(true);
    expect(constantTimeEqual(`${token}`.slice(0), token)).toBe(true);
    for (const other of [
      '',
      'a',
      token.slice(0, -1),
      `${token}5`,
      `${token}${token}`,
      token.replace('4', '5'),
      token.toUpperCase(),
      `x${token.slice(1)}`,
      'é'.repeat(token.length),
    ]) {
      expect(constantTimeEqual(other, token), other).toBe(false);
    }
    expect(constantTimeEqual('', '')).toBe(true);
    expect(constantTimeEqual('ü€😀', 'ü€😀')).toBe(true);
    expect(constantTimeEqual('ü€😀', 'ü€😁')).toBe(false);
  });
});
