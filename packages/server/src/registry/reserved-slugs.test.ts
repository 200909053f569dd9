import { describe, expect, it } from 'vitest';
import { WINDOWS_DEVICE_NAMES } from '@weft/core';
import { pluginDefinition, useHarness } from '../test-support/harness.js';

// A slug is a file name (plugins/<slug>.yaml on every machine that installs it): Windows device
// names cannot be one, whatever the extension.
describe('plugin slugs that are Windows device names', () => {
  const h = useHarness('sqlite');

  it.each(['nul', 'con', 'aux', 'prn', 'com0', 'com1', 'com9', 'lpt0', 'lpt1', 'lpt9'])(
    'refuses to publish %s with VALIDATION naming the slug rule, storing nothing',
    async (slug) => {
      const response = await h().publish(pluginDefinition(slug));
      expect(response.statusCode).toBe(400);
      const body = response.json<{ code: string; message: string; details: object }>();
      expect(body.code).toBe('VALIDATION');
      expect(body.details).toMatchObject({ field: 'slug', constraint: 'reserved' });
      expect(body.message).toContain(`slug "${slug}" is a Windows device name`);
      expect((await h().get(`/plugins/${slug}`)).statusCode).toBe(404);
    },
  );

  it('refuses them in YAML too, and keeps names that only contain one', async () => {
    const yaml = await h().publish(pluginDefinition('nul'), { format: 'yaml' });
    expect(yaml.statusCode).toBe(400);
    for (const slug of ['nul-tools', 'console', 'com10', 'lpt10']) {
      expect((await h().publish(pluginDefinition(slug))).statusCode, slug).toBe(201);
    }
  });

  it('lists every device name', () => {
    expect(WINDOWS_DEVICE_NAMES.size).toBe(24);
  });
});
