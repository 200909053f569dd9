/** `AAA-GG-SSSS` (or with spaces), not inside a longer number. */
const CANDIDATE = /(?<![\d-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\d]|-\d)/g;

/**
 * Counts US social security numbers in `text`, written `AAA-GG-SSSS` or `AAA GG SSSS`, by the
 * Social Security Administration's structure rules (SSNs have no check digit): the area is not
 * 000, 666 or 900–999, the group not 00, the serial not 0000.
 */
export function countUsSsns(text: string): number {
  let count = 0;
  for (const match of text.matchAll(CANDIDATE)) {
    const [, area, , group, serial] = match;
    if (area === '000' || area === '666' || area![0] === '9') continue;
    if (group === '00' || serial === '0000') continue;
    count++;
  }
  return count;
}
