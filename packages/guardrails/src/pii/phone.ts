import type { CountryCode } from 'libphonenumber-js/max';
import { phoneNumberLibrary } from '../libraries.js';

/**
 * A phone-like run: an optional `+`, then digits with spaces, dashes, dots, slashes or
 * parentheses, 7 to 24 characters, not inside a word or a longer number.
 */
const CANDIDATE = /(?<![\w+.-])(?:\+|\(?)\d[\d ().\-/]{5,22}\d(?![\w]|[.-]\d)/g;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const SEPARATOR = /[ ().\-/]/;

/**
 * Counts phone numbers in `text` that `libphonenumber-js` (full metadata) finds valid: written
 * in international form (`+44 20 7946 0958`), or in the national form of `defaultCountry`
 * with separators (`(415) 555-2671`). A bare run of digits without `+` is not taken for a
 * phone number (order numbers, amounts), nor are ISO dates and dotted IPv4 addresses.
 * Candidates are found by a cheap pattern first: the library's own text scan costs ~20× more.
 */
export function countPhones(text: string, defaultCountry: CountryCode | undefined): number {
  let count = 0;
  for (const match of text.matchAll(CANDIDATE)) {
    const candidate = match[0];
    const international = candidate.startsWith('+');
    if (!international && !SEPARATOR.test(candidate)) continue;
    if (ISO_DATE.test(candidate) || /^\d{1,3}(?:\.\d{1,3}){3}$/.test(candidate)) continue;
    const digits = candidate.replace(/\D/g, '').length;
    if (digits < 7 || digits > 15) continue;
    if (!international && defaultCountry === undefined) continue;
    const number = phoneNumberLibrary().parsePhoneNumberFromString(candidate, defaultCountry);
    if (number?.isValid()) count++;
  }
  return count;
}
