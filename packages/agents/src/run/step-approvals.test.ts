import { describe, expect, it } from 'vitest';
import { keepMasked } from './step-approvals.js';

describe('edited arguments of a tool call (keepMasked)', () => {
  it('keeps the secret values the approver saw masked and left as they were', () => {
    const original = { amount: 120, to: 'DE89', auth: { token: 'sk-live-1' }, tags: ['a', 's3'] };
    const edited = { amount: 100, to: 'DE89', auth: { token: '***' }, tags: ['a', '***'] };
    expect(keepMasked(edited, original)).toEqual({
      amount: 100,
      to: 'DE89',
      auth: { token: 'sk-live-1' },
      tags: ['a', 's3'],
    });
  });

  it('keeps a `***` the call did not have, and takes every value the approver changed', () => {
    expect(keepMasked({ note: '***', token: 'new' }, { token: 'sk-live-1' })).toEqual({
      note: '***',
      token: 'new',
    });
    // An inherited name is not a value of the call.
    expect(keepMasked({ toString: '***' }, {})).toEqual({ toString: '***' });
  });
});
