import { assertNever, type Trigger } from '@weft/core';
import { Cron } from 'croner';
import ipaddr from 'ipaddr.js';
import type { Path } from '../diagnostics.js';
import type { Reporter } from '../load/reporter.js';

/** Webhook routes already taken in the file: `METHOD /path` -> where. */
export type WebhookRoutes = Map<string, Path>;

/** Checks the triggers of one workflow: cron, time zone, CIDRs, auth and route clashes. */
export function checkTriggers(
  triggers: Trigger[],
  base: Path,
  routes: WebhookRoutes,
  reporter: Reporter,
): void {
  let manual = 0;
  triggers.forEach((trigger, index) => {
    const at = [...base, 'triggers', index];
    switch (trigger.type) {
      case 'manual':
        if (++manual > 1) reporter.warning(at, 'duplicate', 'a second manual trigger adds nothing');
        return;
      case 'schedule':
        return checkSchedule(trigger.cron, trigger.timezone, at, reporter);
      case 'webhook':
        return checkWebhook(trigger, at, routes, reporter);
      case 'event':
        return;
      default:
        assertNever(trigger, 'trigger');
    }
  });
}

/** True when `zone` is an IANA time zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function checkSchedule(cron: string, zone: string | undefined, at: Path, reporter: Reporter): void {
  if (zone !== undefined && !isTimeZone(zone)) {
    reporter.error(
      [...at, 'timezone'],
      'timezone',
      `unknown time zone "${zone}": expected an IANA name such as Europe/Berlin or UTC`,
      {
        expected: 'an IANA time zone name',
        found: zone,
      },
    );
    zone = undefined;
  }
  const fields = cron.trim().split(/\s+/).length;
  if (!cron.trim().startsWith('@') && (fields < 5 || fields > 6)) {
    reporter.error(
      [...at, 'cron'],
      'cron',
      `a cron expression has 5 fields (or 6 with seconds first), found ${fields}`,
      {
        expected: '5 or 6 fields, e.g. "0 9 * * 1-5"',
        found: cron,
      },
    );
    return;
  }
  try {
    new Cron(cron, { paused: true, ...(zone ? { timezone: zone } : {}) }).stop();
  } catch (error) {
    reporter.error(
      [...at, 'cron'],
      'cron',
      `invalid cron expression "${cron}": ${(error as Error).message}`,
      {
        expected: 'a cron expression such as "0 9 * * 1-5"',
        found: cron,
      },
    );
  }
}

function checkWebhook(
  trigger: Extract<Trigger, { type: 'webhook' }>,
  at: Path,
  routes: WebhookRoutes,
  reporter: Reporter,
): void {
  const route = `${trigger.method ?? 'POST'} ${trigger.path}`;
  const first = routes.get(route);
  if (first) {
    reporter.error([...at, 'path'], 'duplicate', `another webhook already answers ${route}`);
  } else {
    routes.set(route, at);
  }
  if (trigger.path.includes('//') || /(^|\/)\.\.?(\/|$)/.test(trigger.path)) {
    reporter.error(
      [...at, 'path'],
      'path',
      'a webhook path may not contain empty, "." or ".." segments',
    );
  }
  const auth = trigger.auth;
  if (auth?.type === 'hmac-sha256' && auth.header === undefined) {
    reporter.error(
      [...at, 'auth'],
      'required',
      'hmac-sha256 needs "header": the header that carries the signature',
      {
        expected: 'a key "header"',
        found: 'none',
      },
    );
  }
  if (auth?.type === 'bearer' && auth.header !== undefined) {
    reporter.warning(
      [...at, 'auth', 'header'],
      'unused',
      'bearer tokens are read from Authorization; "header" is ignored',
      {
        key: true,
      },
    );
  }
  trigger.security?.ipAllowlist?.forEach((entry, index) => {
    if (!isAddressOrCidr(entry)) {
      reporter.error(
        [...at, 'security', 'ipAllowlist', index],
        'cidr',
        `expected an IP address or CIDR range such as 10.0.0.0/8, found "${entry}"`,
        {
          expected: 'an IP address or CIDR',
          found: entry,
        },
      );
    }
  });
  const security = trigger.security;
  // With hmac-sha256 the window also refuses a signature seen twice, which is all a sender that
  // signs no timestamp (GitHub) allows; without it, only unsigned delivery ids are compared.
  if (
    security?.replayWindow !== undefined &&
    security.timestampHeader === undefined &&
    auth?.type !== 'hmac-sha256'
  ) {
    reporter.warning(
      [...at, 'security', 'replayWindow'],
      'unused',
      'replayWindow without timestampHeader or hmac-sha256 only deduplicates delivery ids, which anyone can change; sign requests with hmac-sha256 (and set timestampHeader) to refuse replays',
    );
  }
}

/** True for `10.0.0.1`, `::1`, `10.0.0.0/8`, `2001:db8::/32`. */
export function isAddressOrCidr(entry: string): boolean {
  try {
    if (entry.includes('/')) ipaddr.parseCIDR(entry);
    else ipaddr.parse(entry);
    return true;
  } catch {
    return false;
  }
}
