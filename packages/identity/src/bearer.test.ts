import { describe, expect, it } from 'vitest';
import { bearerToken, MAX_TOKEN_LENGTH } from './bearer.js';

const reason = (header: string | undefined) => {
  try {
    bearerToken(header);
  } catch (error) {
    return (error as { details: { reason: string } }).details.reason;
  }
  return 'accepted';
};

describe('bearerToken', () => {
  it('takes the token of a Bearer header in any case', () => {
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('Bearer \tabc ')).toBe('abc');
  });

  it('refuses missing, malformed and over-long credentials', () => {
    expect(reason(undefined)).toBe('missing');
    expect(reason('  ')).toBe('missing');
    expect(reason('Basic dXNlcjpwYXNz')).toBe('malformed');
    expect(reason('Bearer a b')).toBe('malformed');
    expect(reason('Bearer ')).toBe('malformed');
    expect(reason(`Bearer ${'a'.repeat(MAX_TOKEN_LENGTH)}`)).toBe('accepted');
    expect(reason(`Bearer ${'a'.repeat(MAX_TOKEN_LENGTH + 1)}`)).toBe('too_large');
    expect(reason(`Bearer ${'a'.repeat(100_000)}`)).toBe('too_large');
  });
});
