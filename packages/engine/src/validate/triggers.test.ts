import { describe, expect, it } from 'vitest';
import { errors, load, warnings, withSteps } from '../test-support/load.js';

const file = (triggers: string) =>
  `${withSteps('      - { name: a, plugin: p, action: x }\n')}    triggers:\n${triggers}`;

describe('trigger checks', () => {
  it('accepts 5- and 6-field cron expressions in IANA zones', () => {
    const result = load(
      file(
        "      - { type: schedule, cron: '0 9 * * 1-5', timezone: America/New_York }\n      - { type: schedule, cron: '*/30 * * * * *' }\n",
      ),
    );
    expect(errors(result)).toEqual([]);
  });

  it('refuses bad cron expressions and unknown time zones', () => {
    const result = load(
      file(
        "      - { type: schedule, cron: '61 * * * *', timezone: Europe/Berln }\n      - { type: schedule, cron: '* * *' }\n",
      ),
    );
    const messages = errors(result);
    expect(messages[0]).toMatch(
      /^workflows\[0\]\.triggers\[0\]\.cron: invalid cron expression "61 \* \* \* \*"/,
    );
    expect(messages[1]).toBe(
      'workflows[0].triggers[0].timezone: unknown time zone "Europe/Berln": expected an IANA name such as Europe/Berlin or UTC',
    );
    expect(messages[2]).toBe(
      'workflows[0].triggers[1].cron: a cron expression has 5 fields (or 6 with seconds first), found 3',
    );
  });

  it('still checks a bad cron and time zone when another trigger of the list is malformed', () => {
    const result = load(
      file(
        "      - { type: schedule, cron: '61 * * * *', timezone: Europe/Berln }\n      - { type: webhok }\n",
      ),
    );
    const messages = errors(result);
    expect(messages).toHaveLength(3);
    expect(messages[0]).toMatch(/^workflows\[0\]\.triggers\[0\]\.cron: invalid cron expression/);
    expect(messages[1]).toMatch(/^workflows\[0\]\.triggers\[0\]\.timezone: unknown time zone/);
    expect(messages[2]).toMatch(/^workflows\[0\]\.triggers\[1\]\.type: .*did you mean "webhook"/);
  });

  it('checks webhook allowlists, auth and route clashes', () => {
    const result = load(
      file(
        "      - type: webhook\n        path: /in\n        auth: { type: hmac-sha256, secret_name: S }\n        security: { ipAllowlist: ['10.0.0.0/8', '::1', '300.1.1.1', '10.0.0.0/33'] }\n" +
          '      - { type: webhook, path: /in, method: POST }\n',
      ),
    );
    expect(errors(result)).toEqual([
      'workflows[0].triggers[0].auth: hmac-sha256 needs "header": the header that carries the signature',
      'workflows[0].triggers[0].security.ipAllowlist[2]: expected an IP address or CIDR range such as 10.0.0.0/8, found "300.1.1.1"',
      'workflows[0].triggers[0].security.ipAllowlist[3]: expected an IP address or CIDR range such as 10.0.0.0/8, found "10.0.0.0/33"',
      'workflows[0].triggers[1].path: another webhook already answers POST /in',
    ]);
  });

  it('refuses dot segments in webhook paths and warns about a replay window without a timestamp header', () => {
    const result = load(
      file('      - { type: webhook, path: /a/../b, security: { replayWindow: 60 } }\n'),
    );
    expect(errors(result)).toEqual([
      'workflows[0].triggers[0].path: a webhook path may not contain empty, "." or ".." segments',
    ]);
    expect(warnings(result)).toHaveLength(1);
  });

  it('does not warn of a replay window on an hmac-sha256 webhook, which also compares signatures', () => {
    const result = load(
      file(
        '      - { type: webhook, path: /gh, auth: { type: hmac-sha256, secret_name: GH, header: X-Hub-Signature-256 }, security: { replayWindow: 300 } }\n',
      ),
    );
    expect(errors(result)).toEqual([]);
    expect(warnings(result)).toEqual([]);
  });

  it('checks event sources', () => {
    const result = load(file('      - { type: event, source: kafak, topic: orders }\n'));
    expect(errors(result)[0]).toContain('(did you mean "kafka"?)');
  });
});
