import { describe, expect, it } from 'vitest';
import { readServerSettings } from './read.js';
import { sandboxSettingsFromEnv } from './sandbox.js';

describe('sandboxSettingsFromEnv', () => {
  it('reads the sandbox settings as the options of the sandbox, leaving unset ones out', () => {
    expect(sandboxSettingsFromEnv({})).toEqual({});
    expect(
      sandboxSettingsFromEnv({
        WEFT_SANDBOX: 'Best-Effort',
        WEFT_CGROUP_PARENT: '/system.slice/weft_1-a',
        WEFT_SCRATCH_DIR: '/var/tmp/weft',
      }),
    ).toEqual({
      mode: 'best-effort',
      cgroupParent: '/system.slice/weft_1-a',
      scratchRoot: '/var/tmp/weft',
    });
    expect(sandboxSettingsFromEnv({ WEFT_CGROUP_PARENT: 'weft/actions/' })).toEqual({
      cgroupParent: 'weft/actions/',
    });
  });
});

describe('readServerSettings', () => {
  it('reads each variable as its schema type and leaves unset or empty ones out', () => {
    expect(
      readServerSettings({
        WEFT_REGISTRY_PRIVATE: 'Yes',
        WEFT_HEALTH_INTERVAL_MS: ' 250 ',
        WEFT_RETENTION_DAYS: '0',
        WEFT_LOG_FORMAT: ' TEXT ',
        WEFT_TRUSTED_PROXIES: ' 10.0.0.1, ,::1 ',
        WEFT_WORKFLOWS_ROLES: '',
        WEFT_PUBLIC_URL: '',
        WEFT_ROUTER_TIMEOUT_MS: '  ',
        OTHER: 'x',
      }),
    ).toEqual({
      WEFT_REGISTRY_PRIVATE: true,
      WEFT_HEALTH_INTERVAL_MS: 250,
      WEFT_RETENTION_DAYS: 0,
      WEFT_LOG_FORMAT: 'text',
      WEFT_TRUSTED_PROXIES: ['10.0.0.1', '::1'],
      WEFT_WORKFLOWS_ROLES: [],
    });
  });

  it.each([
    [
      'WEFT_HEALTH_FAILURES',
      '0',
      'WEFT_HEALTH_FAILURES must be a positive integer, not "0"',
      'integer',
    ],
    [
      'WEFT_ROUTER_TIMEOUT_MS',
      '1e3',
      'WEFT_ROUTER_TIMEOUT_MS must be a positive integer, not "1e3"',
      'integer',
    ],
    [
      'WEFT_AUDIT_RETENTION_DAYS',
      '36501',
      'WEFT_AUDIT_RETENTION_DAYS must be a whole number of days from 0 (keep forever) to 36500, not "36501"',
      'integer',
    ],
    ['WEFT_LOG_FORMAT', 'yaml', 'WEFT_LOG_FORMAT must be "json" or "text", not "yaml"', 'enum'],
    [
      'WEFT_SANDBOX',
      'loose',
      'WEFT_SANDBOX must be "strict" or "best-effort", not "loose"',
      'enum',
    ],
    ...['', 'weft/../x', '..', '/', 'a//b', 'weft box', 'weft;rm', './weft'].map((value) => [
      'WEFT_CGROUP_PARENT',
      value,
      `WEFT_CGROUP_PARENT must be a control group path of letters, digits, \`.\`, \`_\`, \`-\` and \`/\`, without \`.\` or \`..\` segments, not ${JSON.stringify(value)}`,
      'pattern',
    ]),
    [
      'WEFT_SCRATCH_DIR',
      'scratch',
      'WEFT_SCRATCH_DIR must be an absolute path, not "scratch"',
      'pattern',
    ],
    ['WEFT_SCRATCH_DIR', '', 'WEFT_SCRATCH_DIR must be an absolute path, not ""', 'pattern'],
    [
      'WEFT_DEPLOYMENTS_RECONCILE_MS',
      'soon',
      'WEFT_DEPLOYMENTS_RECONCILE_MS must be a whole number of milliseconds (0 turns it off), not "soon"',
      'integer',
    ],
  ])('refuses %s=%j naming the variable and the constraint', (name, value, message, constraint) => {
    expect(() => readServerSettings({ [name]: value })).toThrow(
      expect.objectContaining({
        code: 'VALIDATION',
        message,
        details: { field: name, constraint },
      }),
    );
  });
});
