import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { constantTimeEqual, hmacKey, verifyBearer, verifyHmac } from './signature.js';

const bytes = (text: string) => new TextEncoder().encode(text);
// GitHub's published example: https://docs.github.com/webhooks/using-webhooks/validating-webhook-deliveries
const GITHUB_SECRET = "It's a Secret to Everybody";
const GITHUB_BODY = bytes('Hello, World!');
const GITHUB_SIGNATURE = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

describe('hmac-sha256 verification', () => {
  const key = hmacKey(GITHUB_SECRET);

  it("verifies GitHub's published test vector", () => {
    expect(verifyHmac(key, GITHUB_BODY, GITHUB_SIGNATURE)).toMatchObject({
      ok: true,
      form: 'github',
    });
  });

  it('accepts the same digest as plain hex (any case) and as base64', () => {
    const hex = GITHUB_SIGNATURE.slice(7);
    expect(verifyHmac(key, GITHUB_BODY, hex)).toMatchObject({ ok: true, form: 'hex' });
    expect(verifyHmac(key, GITHUB_BODY, hex.toUpperCase())).toMatchObject({
      ok: true,
      form: 'hex',
    });
    const b64 = Buffer.from(hex, 'hex').toString('base64');
    expect(verifyHmac(key, GITHUB_BODY, b64)).toMatchObject({ ok: true, form: 'base64' });
    expect(verifyHmac(key, GITHUB_BODY, b64.replace(/=$/, ''))).toMatchObject({
      ok: true,
      form: 'base64',
    });
    const url = Buffer.from(hex, 'hex').toString('base64url');
    expect(verifyHmac(key, GITHUB_BODY, url).ok).toBe(true);
  });

  it('refuses a body with one changed byte', () => {
    const changed = bytes('Hello, World?');
    expect(verifyHmac(key, changed, GITHUB_SIGNATURE)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    const oneBitOff = Uint8Array.from(GITHUB_BODY);
    oneBitOff[0] = oneBitOff[0]! ^ 1;
    expect(verifyHmac(key, oneBitOff, GITHUB_SIGNATURE).ok).toBe(false);
  });

  it('refuses a signature with one changed digit', () => {
    const last = GITHUB_SIGNATURE.at(-1) === '7' ? '8' : '7';
    expect(verifyHmac(key, GITHUB_BODY, GITHUB_SIGNATURE.slice(0, -1) + last)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('refuses a truncated signature before comparing', () => {
    for (const cut of [1, 2, 32, 63]) {
      expect(verifyHmac(key, GITHUB_BODY, GITHUB_SIGNATURE.slice(0, -cut))).toEqual({
        ok: false,
        reason: 'malformed_signature',
      });
    }
    expect(verifyHmac(key, GITHUB_BODY, 'sha256=')).toEqual({
      ok: false,
      reason: 'malformed_signature',
    });
  });

  it('refuses a wrong prefix', () => {
    const hex = GITHUB_SIGNATURE.slice(7);
    for (const prefix of ['sha1=', 'sha512=', 'SHA256=', 'sha256:', 'v0,']) {
      expect(verifyHmac(key, GITHUB_BODY, prefix + hex).ok).toBe(false);
    }
  });

  it('refuses a missing or empty header and the wrong key', () => {
    expect(verifyHmac(key, GITHUB_BODY, undefined)).toEqual({
      ok: false,
      reason: 'missing_signature',
    });
    expect(verifyHmac(key, GITHUB_BODY, '  ')).toEqual({ ok: false, reason: 'missing_signature' });
    expect(verifyHmac(hmacKey('another secret'), GITHUB_BODY, GITHUB_SIGNATURE).ok).toBe(false);
  });

  it('refuses an empty secret instead of signing with an empty key', () => {
    expect(() => hmacKey('')).toThrow(/empty/);
    expect(() => hmacKey('whsec_')).toThrow(/empty/);
  });
});

describe('signatures bound to a timestamp', () => {
  const key = hmacKey(GITHUB_SECRET);
  const timestamp = '1780315200';
  const bound = createHmac('sha256', key).update(`${timestamp}.`).update(GITHUB_BODY).digest();

  it('verifies <timestamp>.<body> in every non-Standard form and returns the digest', () => {
    for (const form of [
      `sha256=${bound.toString('hex')}`,
      bound.toString('hex'),
      bound.toString('base64'),
    ]) {
      const check = verifyHmac(key, GITHUB_BODY, form, {
        id: undefined,
        timestamp: undefined,
        signedTimestamp: timestamp,
      });
      expect(check).toMatchObject({ ok: true, digest: bound });
    }
  });

  it('names a body-only signature when a timestamp must be signed', () => {
    const parts = { id: undefined, timestamp: undefined, signedTimestamp: timestamp };
    expect(verifyHmac(key, GITHUB_BODY, GITHUB_SIGNATURE, parts)).toEqual({
      ok: false,
      reason: 'body_only_signature',
    });
    const other = { ...parts, signedTimestamp: '1780315201' };
    expect(verifyHmac(key, GITHUB_BODY, bound.toString('hex'), other)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('accepts only the v1 form when the secret is a Standard Webhooks one', () => {
    const parts = { id: 'msg_1', timestamp, standardOnly: true };
    expect(verifyHmac(key, GITHUB_BODY, GITHUB_SIGNATURE, parts)).toEqual({
      ok: false,
      reason: 'standard_signature_required',
    });
    const v1 = createHmac('sha256', key).update(`msg_1.${timestamp}.`).update(GITHUB_BODY);
    expect(verifyHmac(key, GITHUB_BODY, `v1,${v1.digest('base64')}`, parts).ok).toBe(true);
  });

  it('refuses a blank secret', () => {
    expect(() => hmacKey(' \t\n ')).toThrow(/blank/);
  });
});

describe('Standard Webhooks form', () => {
  // The example of the Standard Webhooks reference libraries.
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
  const timestamp = '1614265330';
  const body = bytes('{"test": 2432232314}');
  const signature = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';
  const key = hmacKey(secret);

  it('verifies the reference example, with the whsec_ secret base64-decoded', () => {
    expect(verifyHmac(key, body, signature, { id, timestamp })).toMatchObject({
      ok: true,
      form: 'standard',
    });
  });

  it('accepts a matching signature anywhere in a space-separated list', () => {
    const other = `v1,${Buffer.alloc(32, 1).toString('base64')}`;
    expect(verifyHmac(key, body, `${other} ${signature}`, { id, timestamp }).ok).toBe(true);
    expect(verifyHmac(key, body, `v1a,abc ${signature}`, { id, timestamp }).ok).toBe(true);
  });

  it('binds the signature to the id and the timestamp', () => {
    expect(verifyHmac(key, body, signature, { id: 'msg_other', timestamp }).ok).toBe(false);
    expect(verifyHmac(key, body, signature, { id, timestamp: '1614265331' }).ok).toBe(false);
    expect(verifyHmac(key, body, signature, { id, timestamp: undefined })).toEqual({
      ok: false,
      reason: 'missing_standard_headers',
    });
  });

  it('refuses a truncated entry and a changed body', () => {
    expect(verifyHmac(key, body, signature.slice(0, -2), { id, timestamp })).toEqual({
      ok: false,
      reason: 'malformed_signature',
    });
    expect(verifyHmac(key, bytes('{"test": 2432232315}'), signature, { id, timestamp })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('signs over id.timestamp.body exactly', () => {
    const own = createHmac('sha256', key)
      .update(`${id}.${timestamp}.`)
      .update(body)
      .digest('base64');
    expect(`v1,${own}`).toBe(signature);
  });
});

describe('bearer verification', () => {
  const token = Buffer.from('s3cret-token');

  it('accepts the token in Authorization, any case of Bearer', () => {
    expect(verifyBearer(token, 'Bearer s3cret-token').ok).toBe(true);
    expect(verifyBearer(token, 'bearer s3cret-token').ok).toBe(true);
  });

  it('refuses a missing, malformed, shorter, longer or different token', () => {
    expect(verifyBearer(token, undefined)).toEqual({ ok: false, reason: 'missing_token' });
    expect(verifyBearer(token, 'Basic s3cret-token')).toEqual({
      ok: false,
      reason: 'missing_token',
    });
    expect(verifyBearer(token, 'Bearer ')).toEqual({ ok: false, reason: 'missing_token' });
    for (const given of ['s3cret-toke', 's3cret-token!', 's3cret-tokeN']) {
      expect(verifyBearer(token, `Bearer ${given}`)).toEqual({ ok: false, reason: 'bad_token' });
    }
  });

  it('compares lengths first', () => {
    expect(constantTimeEqual(Buffer.from('ab'), Buffer.from('abc'))).toBe(false);
    expect(constantTimeEqual(Buffer.from('abc'), Buffer.from('abc'))).toBe(true);
  });
});
