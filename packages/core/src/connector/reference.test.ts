import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/weft-error.js';
import { connectorRefError, parseConnectorRef, targetPlugin } from './reference.js';

describe('parseConnectorRef', () => {
  it('reads namespace, name and a pinned version', () => {
    expect(parseConnectorRef('connector:acme/http@1.2.0')).toEqual({
      namespace: 'acme',
      name: 'http',
      version: '1.2.0',
    });
  });

  it('keeps a range or prerelease after @ as written, and dots, dashes and underscores in names', () => {
    expect(parseConnectorRef('connector:my-org/pay_ments.v2@^1.4')).toEqual({
      namespace: 'my-org',
      name: 'pay_ments.v2',
      version: '^1.4',
    });
    expect(parseConnectorRef('connector:acme/http@2.0.0-rc.1')?.version).toBe('2.0.0-rc.1');
  });

  it('is undefined for what is not a connector reference', () => {
    for (const ref of [
      'acme/http@1.0.0', // no connector: prefix
      'connector:http@1.0.0', // no namespace
      'connector:acme/http', // no version
      'connector:acme/http@', // empty version
      'connector:Acme/http@1.0.0', // capitals
      'agent:acme/http@1.0.0',
      '',
    ])
      expect(parseConnectorRef(ref), ref).toBeUndefined();
  });
});

describe('targetPlugin', () => {
  it('gives a plugin slug as it is, without a version', () => {
    expect(targetPlugin({ kind: 'plugin', slug: 'http' })).toEqual({ slug: 'http' });
  });

  it("gives a connector reference's name and pinned version", () => {
    const target = { kind: 'connector', ref: 'connector:acme/http@1.2.0' } as const;
    expect(targetPlugin(target)).toEqual({ slug: 'http', version: '1.2.0' });
  });

  it('throws VALIDATION naming the shape on a malformed reference', () => {
    const target = { kind: 'connector', ref: 'acme/http@1' } as const;
    expect(() => targetPlugin(target)).toThrow(ValidationError);
    expect(() => targetPlugin(target)).toThrow(
      '"acme/http@1" is not a connector reference connector:<namespace>/<name>@<version>',
    );
    expect(connectorRefError('x').details).toEqual({ field: 'connector', constraint: 'pattern' });
  });

  it("throws the caller's own error when it gives one", () => {
    const target = { kind: 'connector', ref: 'nope' } as const;
    expect(() => targetPlugin(target, (ref) => new Error(`bad ${ref}`))).toThrow('bad nope');
  });
});
