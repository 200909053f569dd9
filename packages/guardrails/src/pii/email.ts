const LOCAL = /[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]/;
const DOMAIN = /[A-Za-z0-9.-]/;
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const TOP_LEVEL = /^[A-Za-z]{2,63}$/;

/**
 * Counts the email addresses in `text`: a local part of at most 64 characters without leading,
 * trailing or doubled dots, and a domain of at least two labels whose last is a top-level
 * domain of letters. Scans out from each `@`, so the cost is linear whatever the text holds.
 */
export function countEmails(text: string): number {
  let count = 0;
  for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > 0 && at - start <= 64 && LOCAL.test(text[start - 1]!)) start--;
    if (start > 0 && LOCAL.test(text[start - 1]!)) continue; // a local part over 64 characters
    let end = at + 1;
    while (end < text.length && end - at <= 254 && DOMAIN.test(text[end]!)) end++;
    const local = text.slice(start, at).replace(/^\.+/, '');
    const domain = text.slice(at + 1, end).replace(/[.-]+$/, '');
    if (isLocalPart(local) && isDomain(domain)) count++;
  }
  return count;
}

function isLocalPart(local: string): boolean {
  return local.length > 0 && !local.endsWith('.') && !local.includes('..');
}

function isDomain(domain: string): boolean {
  const labels = domain.split('.');
  if (labels.length < 2 || domain.length > 253) return false;
  return TOP_LEVEL.test(labels[labels.length - 1]!) && labels.every((label) => LABEL.test(label));
}
