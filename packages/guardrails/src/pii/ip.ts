import ipaddr from 'ipaddr.js';

/** Four dotted numbers, not part of a longer dotted run or a word (`v1.2.3.4`). */
const IPV4 = /(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?!\w|\.\d)/g;
/** Hex groups and colons (with an optional dotted IPv4 tail), not inside a word. */
const IPV6 =
  /(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:(?:\d{1,3}\.){3}\d{1,3}|[0-9A-Fa-f]{1,4})?(?![\w:]|\.\d)/g;

/**
 * Counts IP addresses in `text`: dotted IPv4 addresses whose parts are 0–255, and IPv6
 * addresses as `ipaddr.js` parses them (at least two hex groups, so `::` and times such as
 * `12:30:45` are not). An IPv6 address with an IPv4 tail counts once.
 */
export function countIpAddresses(text: string): number {
  let count = 0;
  for (const match of text.matchAll(IPV4)) {
    if (ipaddr.IPv4.isValidFourPartDecimal(match[0])) count++;
  }
  if (!text.includes(':')) return count;
  for (const match of text.matchAll(IPV6)) {
    const candidate = match[0];
    const groups = candidate.split(':').filter((group) => group.length > 0).length;
    // An IPv4 tail (`::ffff:192.0.2.1`) was counted as an IPv4 address already.
    if (groups >= 2 && !candidate.includes('.') && ipaddr.IPv6.isValid(candidate)) count++;
  }
  return count;
}
