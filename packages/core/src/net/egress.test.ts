import { describe, expect, it } from 'vitest';
import { EgressPolicy, parseCidrList } from './egress.js';

describe('egress policy', () => {
  const policy = new EgressPolicy();

  it('refuses link-local and cloud metadata addresses', () => {
    for (const address of [
      '169.254.169.254',
      '169.254.0.1',
      'fe80::1',
      'fd00:ec2::254',
      '100.100.100.200',
      '192.0.0.192',
      '::ffff:169.254.169.254',
      '64:ff9b::a9fe:a9fe',
      '2002:a9fe:a9fe::1',
    ]) {
      expect(policy.refusal(address), address).toMatch(/link-local or cloud metadata/);
    }
  });

  it('allows loopback, private and public addresses', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '192.168.0.10',
      '8.8.8.8',
      '::1',
      'fd00::1',
      '[::1]',
    ]) {
      expect(policy.allows(address), address).toBe(true);
    }
  });

  it('allows a blocked address inside an allow-listed CIDR, and only there', () => {
    const allowing = new EgressPolicy(['169.254.10.0/24', 'fd00:ec2::254']);
    expect(allowing.allows('169.254.10.20')).toBe(true);
    expect(allowing.allows('fd00:ec2::254')).toBe(true);
    expect(allowing.allows('169.254.169.254')).toBe(false);
    expect(allowing.allowlist).toEqual(['169.254.10.0/24', 'fd00:ec2::254/128']);
  });

  it('refuses what is not an IP address', () => {
    expect(policy.refusal('metadata.internal')).toMatch(/not an IP address/);
  });

  it('names a bad allowlist entry', () => {
    expect(() => new EgressPolicy(['10.0.0.0/33'])).toThrow(
      /egress allowlist entry "10.0.0.0\/33"/,
    );
    expect(() => new EgressPolicy(['nope'])).toThrow(
      expect.objectContaining({ details: { field: 'egressAllowlist', constraint: 'cidr' } }),
    );
  });

  it('parses a comma-separated list, ignoring empty items', () => {
    expect(parseCidrList(' 10.0.0.0/8, ,fd00::/8 ')).toEqual(['10.0.0.0/8', 'fd00::/8']);
    expect(parseCidrList(undefined)).toEqual([]);
  });
});
