import { PII_KINDS, type PiiKind } from '@weft/core';
import { describe, expect, it } from 'vitest';
import { luhn } from './card.js';
import { piiDetector } from './pii-detector.js';

const detector = piiDetector();
const found = (text: string, kinds: readonly PiiKind[] = PII_KINDS) =>
  (detector.detect({ text, kinds, topics: [] }) as { found: Record<string, number> }).found;

describe('piiDetector', () => {
  it('finds email addresses and ignores what only looks like one', () => {
    expect(found('write to jane.doe+tag@mail.example.co.uk.')).toEqual({ email: 1 });
    for (const text of [
      'user@localhost',
      'a@b',
      'x@y.c',
      '@handle',
      'a..b@example.com',
      'a@ex..com',
    ])
      expect(found(text, ['email'])).toEqual({});
  });

  it('finds phone numbers in international form and in the default country with separators', () => {
    expect(found('call +44 20 7946 0958', ['phone'])).toEqual({ phone: 1 });
    expect(found('call (415) 555-2671 or 415-555-2672', ['phone'])).toEqual({ phone: 2 });
    expect(found('call +1 415 555 2671', ['phone'])).toEqual({ phone: 1 });
  });

  it('does not take order numbers, dates, amounts or invalid numbers for phones', () => {
    for (const text of [
      'order 4155552671',
      'on 2024-01-15 at 10:30',
      'total $1,299.99',
      'version 1.2.3',
      '+1 000 000 0000',
      '(123) 456-7890',
    ])
      expect(found(text, ['phone'])).toEqual({});
    expect(
      piiDetector({ phoneCountry: null }).detect({
        text: '(415) 555-2671',
        kinds: ['phone'],
        topics: [],
      }),
    ).toEqual({ found: {} });
  });

  it('finds card numbers that pass the Luhn check and start like a card', () => {
    expect(
      found('4111 1111 1111 1111 and 5500-0000-0000-0004 and 378282246310005', ['credit_card']),
    ).toEqual({ credit_card: 3 });
    expect(luhn('4111111111111111')).toBe(true);
    expect(luhn('4111111111111112')).toBe(false);
  });

  it('does not take a bad Luhn sum, an unknown issuer or a longer number for a card', () => {
    for (const text of [
      '4111 1111 1111 1112',
      '9111111111111119',
      '41111111111111111111111',
      'id 1234567812345670',
    ])
      expect(found(text, ['credit_card'])).toEqual({});
  });

  it('finds IBANs grouped or not, checked by their check digits', () => {
    expect(found('pay DE89 3704 0044 0532 0130 00 or GB82WEST12345698765432', ['iban'])).toEqual({
      iban: 2,
    });
    expect(found('pay DE89 3704 0044 0532 0130 00 AB today', ['iban'])).toEqual({ iban: 1 });
    expect(found('DE88 3704 0044 0532 0130 00 and GB82WEST1234569876543', ['iban'])).toEqual({});
  });

  it('finds IPv4 and IPv6 addresses, not versions, times or out-of-range parts', () => {
    expect(
      found('from 203.0.113.7 and 2001:db8::8a2e:370:7334 and ::ffff:192.0.2.1', ['ip_address']),
    ).toEqual({ ip_address: 3 });
    for (const text of [
      'v1.2.3.4',
      '999.1.1.1',
      '1.2.3.4.5',
      'at 12:30:45',
      'std::vector',
      '00:1A:2B:3C:4D:5E',
      '::',
    ])
      expect(found(text, ['ip_address'])).toEqual({});
  });

  it('finds US SSNs by their structure rules', () => {
    expect(found('SSN 123-45-6789 or 123 45 6789', ['us_ssn'])).toEqual({ us_ssn: 2 });
    for (const text of [
      '000-12-3456',
      '666-12-3456',
      '912-34-5678',
      '123-00-4567',
      '123-45-0000',
      '123-45 6789',
      '1123-45-6789',
    ])
      expect(found(text, ['us_ssn'])).toEqual({});
  });

  it('looks only for the kinds asked and counts each kind', () => {
    const text = 'a@example.com b@example.org 4111111111111111';
    expect(found(text, ['email'])).toEqual({ email: 2 });
    expect(found(text)).toEqual({ email: 2, credit_card: 1 });
  });

  it('finds nothing in ordinary prose with numbers', () => {
    const prose =
      'Invoice 2024-117 of 15 March: 3 items at 19.99 EUR, total 59.97, shipped in 2-3 days. ' +
      'Call us on weekdays 9:00–17:00. Release 4.2.1 fixes issue #1234. Score 98.6%.';
    expect(found(prose)).toEqual({});
  });
});
