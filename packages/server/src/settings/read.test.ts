import { describe, expect, it } from 'vitest';
import { readServerSettings } from './read.js';

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
