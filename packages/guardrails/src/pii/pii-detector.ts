import { LEXICAL_DETECTORS, type PiiKind } from '@weft/core';
import type { CountryCode } from 'libphonenumber-js/max';
import type { Detection, DetectionRequest, SyncDetector } from '../detector.js';
import { countCards } from './card.js';
import { countEmails } from './email.js';
import { countIbans } from './iban.js';
import { countIpAddresses } from './ip.js';
import { countPhones } from './phone.js';
import { countUsSsns } from './ssn.js';

/** Options of {@link piiDetector}. */
export interface PiiDetectorOptions {
  /**
   * The country whose national phone format is read without a `+` prefix (ISO 3166 alpha-2);
   * default `US`. `null` finds only international numbers.
   */
  phoneCountry?: CountryCode | null;
}

/**
 * The default PII detector: counts, by kind, the personal data each kind's validator accepts
 * (see the `count*` functions): `email`, `phone` (libphonenumber-js), `credit_card` (issuer
 * prefix and Luhn), `iban` (ibantools), `ip_address` (ipaddr.js), `us_ssn` (SSA structure).
 */
export function piiDetector(options: PiiDetectorOptions = {}): SyncDetector {
  const country = options.phoneCountry === null ? undefined : (options.phoneCountry ?? 'US');
  const counters: Record<PiiKind, (text: string) => number> = {
    email: countEmails,
    phone: (text) => countPhones(text, country),
    credit_card: countCards,
    iban: countIbans,
    ip_address: countIpAddresses,
    us_ssn: countUsSsns,
  };
  return {
    name: LEXICAL_DETECTORS.pii,
    check: 'pii',
    detect({ text, kinds }: DetectionRequest): Detection {
      const found: Record<string, number> = {};
      for (const kind of kinds) {
        const count = counters[kind](text);
        if (count > 0) found[kind] = count;
      }
      return { found };
    },
  };
}
