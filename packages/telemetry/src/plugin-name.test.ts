import { describe, expect, it } from 'vitest';
import { pluginName } from './interceptor.js';

describe('pluginName (the plugin attribute of spans and metrics)', () => {
  it('is the slug of a plugin target', () => {
    expect(pluginName({ kind: 'plugin', slug: 'http' })).toBe('http');
  });

  it('is the namespace/name of a connector reference, without its version or range', () => {
    expect(pluginName({ kind: 'connector', ref: 'connector:acme/http@1.2.0' })).toBe('acme/http');
    expect(pluginName({ kind: 'connector', ref: 'connector:my-org/pay.v2@^1.4' })).toBe(
      'my-org/pay.v2',
    );
  });
});
