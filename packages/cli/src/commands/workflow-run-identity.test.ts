import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { TestIdentityProvider } from '@weft/identity/testing';
import { run } from '../test-support.js';

const FLOW = `workflows:
  - name: payout
    authorization:
      roles: [finance]
      permissions: ['payments:write']
    steps: [{ name: pay, type: transform, input: { paid: true } }]
    outputs: { paid: { value: '{{ steps.pay.output.paid }}' } }
`;

describe('weft workflow run --identity: tokens verified against the provider on loopback', () => {
  const idp = new TestIdentityProvider();
  let dir: string;
  let flow: string;

  beforeAll(async () => {
    await idp.start();
    dir = mkdtempSync(join(tmpdir(), 'weft-cli-identity-'));
    flow = join(dir, 'flow.yaml');
    writeFileSync(flow, FLOW);
  });
  afterAll(() => idp.stop());
  beforeEach(() => {
    idp.mode = 'up';
    vi.stubEnv('WEFT_OIDC_ISSUER', idp.url);
    vi.stubEnv('WEFT_OIDC_AUDIENCE', 'weft');
    vi.stubEnv('WEFT_ACCESS_FILE', '');
  });
  afterEach(() => void vi.unstubAllEnvs());

  const runAs = (identity: string) =>
    run('workflow', 'run', flow, '--identity', identity, '-o', 'json');

  it('runs as the user of a valid token, given inline or as @file', async () => {
    const token = await idp.sign({ roles: ['finance'], permissions: ['payments:write'] });
    const inline = await runAs(token);
    expect(inline.err).toBe('');
    expect(inline.code).toBe(0);
    expect(JSON.parse(inline.out)).toMatchObject({ status: 'completed', outputs: { paid: true } });
    const file = join(dir, 'token.jwt');
    writeFileSync(file, `${token}\n`);
    expect((await runAs(`@${file}`)).code).toBe(0);
  });

  it("exits 2 naming what the token's user lacks", async () => {
    const token = await idp.sign({ sub: 'ada', roles: ['finance'] });
    const result = await runAs(token);
    expect(result.code).toBe(2);
    expect(result.err).toContain(
      'not authorized to run workflow "payout": it needs the permissions payments:write',
    );
    expect(result.err).toContain('running as ada (oidc) with roles: finance; permissions: none');
  });

  it('grants the permissions of WEFT_ACCESS_FILE to the roles the token carries', async () => {
    const access = join(dir, 'access.yaml');
    writeFileSync(access, 'roles:\n  finance:\n    permissions: [payments:write]\n');
    vi.stubEnv('WEFT_ACCESS_FILE', access);
    const result = await runAs(await idp.sign({ roles: ['finance'] }));
    expect(result.code).toBe(0);
  });

  it('exits 2 with the reason for an expired, forged or foreign token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await runAs(
      await idp.sign({ roles: ['finance'], iat: now - 7200, exp: now - 3600 }),
    );
    expect(expired.code).toBe(2);
    expect(expired.err).toContain('--identity refused: the token has expired (expired)');
    const token = await idp.sign({ roles: ['finance'] });
    const [header, payload] = token.split('.');
    const forged = await runAs(`${header}.${payload}.${'A'.repeat(342)}`);
    expect(forged.code).toBe(2);
    expect(forged.err).toContain('(bad_signature)');
    const foreign = await runAs(await idp.sign({ aud: 'someone-else' }));
    expect(foreign.err).toContain('(wrong_audience)');
    const garbage = await runAs('not-a-token');
    expect(garbage.err).toContain('(malformed)');
    expect(garbage.code).toBe(2);
  });

  it('fails closed with exit 2 when the provider cannot be reached', async () => {
    const token = await idp.sign({ roles: ['finance'], permissions: ['payments:write'] });
    idp.mode = 'down';
    const result = await runAs(token);
    expect(result.code).toBe(2);
    expect(result.err).toContain('--identity could not be verified, so the run does not start');
    expect(result.err).toContain("cannot read the identity provider's discovery document");
    expect(result.out).toBe('');
  });

  it('exits 2 when no provider is configured, or a token file cannot be read', async () => {
    vi.stubEnv('WEFT_OIDC_ISSUER', '');
    vi.stubEnv('WEFT_OIDC_AUDIENCE', '');
    const unset = await runAs('a.b.c');
    expect(unset.code).toBe(2);
    expect(unset.err).toContain('--identity needs the identity provider whose tokens to accept');
    vi.stubEnv('WEFT_OIDC_ISSUER', idp.url);
    vi.stubEnv('WEFT_OIDC_AUDIENCE', 'weft');
    const missing = await runAs(`@${join(dir, 'nope.jwt')}`);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('--identity: cannot read');
  });
});
