import { electronicFormatIBAN, isValidIBAN } from 'ibantools';

/** A country code, check digits and 11 to 30 letters or digits, in groups or not. */
const CANDIDATE = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b/g;

/**
 * Counts IBANs in `text` (printed in groups of four or not), checked by `ibantools`: the
 * country's length and format and the mod-97 check digits. A grouped candidate that swallowed
 * a following word is tried again without its last groups.
 */
export function countIbans(text: string): number {
  let count = 0;
  for (const match of text.matchAll(CANDIDATE)) {
    let candidate = match[0];
    for (;;) {
      const electronic = electronicFormatIBAN(candidate);
      if (electronic !== null && isValidIBAN(electronic)) {
        count++;
        break;
      }
      const cut = candidate.lastIndexOf(' ');
      if (cut < 15) break;
      candidate = candidate.slice(0, cut);
    }
  }
  return count;
}
