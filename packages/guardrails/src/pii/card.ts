/** 13 to 19 digits, optionally grouped by single spaces or dashes, not inside a longer number. */
const CANDIDATE = /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d]|-\d)/g;

/**
 * Issuer prefixes of the card networks (Visa, Mastercard, American Express, Discover, JCB,
 * Diners Club, UnionPay, Maestro), so that a number passing the Luhn check by chance (one in
 * ten) is not taken for a card unless it also starts like one.
 */
const ISSUER =
  /^(?:4|5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720)|3[47]|6(?:011|5|4[4-9]|2)|35(?:2[89]|[3-8])|3(?:0[0-5]|[689])|5[06-9]|6\d)/;

/** Counts payment card numbers in `text`: a known issuer prefix, 13–19 digits, a valid Luhn sum. */
export function countCards(text: string): number {
  let count = 0;
  for (const match of text.matchAll(CANDIDATE)) {
    const digits = match[0].replace(/[ -]/g, '');
    if (ISSUER.test(digits) && luhn(digits)) count++;
  }
  return count;
}

/** The Luhn (mod 10) check of a string of digits. */
export function luhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let digit = digits.charCodeAt(i) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}
