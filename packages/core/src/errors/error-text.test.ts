import { describe, expect, it } from 'vitest';
import { capErrorObject, capText, MAX_ERROR_TEXT } from './error-text.js';

describe('error texts', () => {
  it('keeps the beginning of a long text, says how much was cut, and fits the limit', () => {
    const text = 'a'.repeat(50_000);
    const cut = capText(text);
    expect(cut.length).toBeLessThanOrEqual(MAX_ERROR_TEXT);
    const kept = cut.indexOf('…');
    expect(cut.slice(kept)).toBe(`… (${50_000 - kept} more characters)`);
    expect(capText(cut)).toBe(cut);
    expect(capText('short')).toBe('short');
  });

  it('never splits a surrogate pair', () => {
    const cut = capText('😀'.repeat(1000), 100);
    expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it('cuts the message and each text of the details; the stack trace keeps more', () => {
    const long = 'x'.repeat(10_000);
    const error = {
      status: 'error' as const,
      code: 'BACKEND_ERROR' as const,
      message: long,
      details: { backend: 'api', original_error: long, stack_trace: long, status_code: 500 },
    };
    const cut = capErrorObject(error);
    expect(cut.message.length).toBeLessThanOrEqual(1024);
    expect(cut.details['original_error'].length).toBeLessThanOrEqual(1024);
    expect(cut.details['stack_trace'].length).toBeLessThanOrEqual(4096);
    expect(cut.details['stack_trace'].length).toBeGreaterThan(1024);
    expect(cut.details['status_code']).toBe(500);
    const short = { ...error, message: 'm', details: { backend: 'api' } };
    expect(capErrorObject(short)).toBe(short);
  });
});
