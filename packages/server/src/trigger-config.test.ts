import { describe, expect, it } from 'vitest';
import { compileTriggerOptions, triggerOptionsFromEnv } from './trigger-config.js';

describe('trigger settings from the environment', () => {
  it('reads WEFT_TRUSTED_PROXIES as a comma-separated list of IPs and CIDRs', () => {
    const options = triggerOptionsFromEnv({
      WEFT_TRUSTED_PROXIES: ' 10.0.0.1, 192.168.0.0/16,,::1 ',
    });
    expect(compileTriggerOptions(options).trustedProxies).toEqual([
      '10.0.0.1',
      '192.168.0.0/16',
      '::1',
    ]);
  });

  it('trusts no proxy without WEFT_TRUSTED_PROXIES', () => {
    expect(compileTriggerOptions(triggerOptionsFromEnv({})).trustedProxies).toEqual([]);
  });

  it('refuses a WEFT_TRUSTED_PROXIES entry that is no address with VALIDATION naming it', () => {
    const options = triggerOptionsFromEnv({ WEFT_TRUSTED_PROXIES: '10.0.0.1,proxy.local' });
    expect(() => compileTriggerOptions(options)).toThrow(
      expect.objectContaining({
        code: 'VALIDATION',
        message: expect.stringContaining('WEFT_TRUSTED_PROXIES'),
      }),
    );
  });

  it('reads the reconcile interval of deployments, 1000 ms by default, 0 to turn it off', () => {
    const read = (value?: string) =>
      compileTriggerOptions(
        triggerOptionsFromEnv(value === undefined ? {} : { WEFT_DEPLOYMENTS_RECONCILE_MS: value }),
      ).reconcileIntervalMs;
    expect(read()).toBe(1000);
    expect(read('250')).toBe(250);
    expect(read('0')).toBe(0);
    expect(() => read('soon')).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
  });
});
