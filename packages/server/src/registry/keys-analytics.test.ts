import * as openpgp from 'openpgp';
import { beforeAll, describe, expect, it } from 'vitest';
import { signDefinition } from '@weft/registry';
import { bearer, pluginDefinition, TEST_STORES, useHarness } from '../test-support/harness.js';

let signer: { publicKey: string; privateKey: string };
let stranger: { publicKey: string; privateKey: string };
beforeAll(async () => {
  signer = await openpgp.generateKey({
    type: 'curve25519',
    userIDs: [{ name: 'Acme', email: 'sec@acme.test' }],
    format: 'armored',
  });
  stranger = await openpgp.generateKey({
    type: 'curve25519',
    userIDs: [{ name: 'Eve' }],
    format: 'armored',
  });
});

for (const store of TEST_STORES) {
  describe.skipIf(store.skip)(
    `signing keys, signatures, API keys and analytics on ${store.name}`,
    () => {
      const h = useHarness(store.kind);
      const upload = (armored: string, key: string | null = h().keys.acme) =>
        h().app.inject({
          method: 'POST',
          url: '/keys',
          headers: key === null ? {} : bearer(key),
          payload: { armored_key: armored },
        });

      it('stores an owner public key once', async () => {
        const first = await upload(signer.publicKey);
        expect(first.statusCode).toBe(201);
        expect(first.json()).toMatchObject({ owner: 'acme', user_ids: ['Acme <sec@acme.test>'] });
        expect((await upload(signer.publicKey)).statusCode).toBe(200);
        const listed = (await h().get('/owners/acme/keys')).json<{
          keys: { fingerprint: string }[];
        }>();
        expect(listed.keys.map((k) => k.fingerprint)).toEqual([first.json().fingerprint]);
      });

      it.each([
        ['a private key', () => signer.privateKey, 400],
        ['garbage', () => 'not a key', 400],
      ])('refuses %s', async (_what, armored, status) => {
        const response = await upload(armored());
        expect(response.statusCode).toBe(status);
        expect(response.json().details.field).toBe('armored_key');
      });

      it('needs a key to upload a key', async () => {
        expect((await upload(signer.publicKey, null)).statusCode).toBe(401);
      });

      it('verifies a signed publish and reports the signing key in the detail', async () => {
        const key = (await upload(signer.publicKey)).json<{ key_id: string }>();
        const signed = await signDefinition(pluginDefinition('slack'), signer.privateKey);
        expect((await h().publish(signed, { format: 'yaml' })).statusCode).toBe(201);
        expect((await h().get('/plugins/slack')).json()).toMatchObject({
          signed: true,
          signature_key_id: key.key_id,
        });
      });

      it.each([
        [
          'a tampered definition',
          async () => ({
            ...(await signDefinition(pluginDefinition('slack'), signer.privateKey)),
            description: 'Evil',
          }),
          'valid_signature',
        ],
        [
          'a key the owner never uploaded',
          async () => signDefinition(pluginDefinition('slack'), stranger.privateKey),
          'known_key',
        ],
        [
          'a signature of another key under a known key id',
          async () => {
            const good = await signDefinition(pluginDefinition('slack'), signer.privateKey);
            const bad = await signDefinition(pluginDefinition('slack'), stranger.privateKey);
            return {
              ...good,
              signature: { ...good.signature!, signature: bad.signature!.signature },
            };
          },
          'valid_signature',
        ],
      ])('refuses %s with 400 and stores nothing', async (_what, make, constraint) => {
        await upload(signer.publicKey);
        const response = await h().publish(await make());
        expect(response.statusCode).toBe(400);
        expect(response.json().details).toMatchObject({ field: 'signature', constraint });
        expect((await h().get('/plugins/slack')).statusCode).toBe(404);
      });

      it('lets an admin key create keys, and no other key', async () => {
        const created = await h().app.inject({
          method: 'POST',
          url: '/auth/keys',
          headers: bearer(h().keys.admin),
          payload: { name: 'ci', owner: 'acme' },
        });
        expect(created.statusCode).toBe(201);
        const key = created.json<{ key: string; owner: string }>();
        expect(key.owner).toBe('acme');
        expect((await h().publish(pluginDefinition('slack'), { key: key.key })).statusCode).toBe(
          201,
        );
        const refused = await h().app.inject({
          method: 'POST',
          url: '/auth/keys',
          headers: bearer(h().keys.acme),
          payload: { name: 'x' },
        });
        expect(refused.statusCode).toBe(403);
      });

      it('shows downloads per version and per day to the owner only', async () => {
        await h().publish(pluginDefinition('slack'));
        await h().publish(pluginDefinition('slack', '1.1.0'), { method: 'PUT' });
        await h().get('/plugins/slack/1.0.0/schema');
        h().clock.advanceHours(24);
        await h().get('/plugins/slack/1.1.0/schema');
        await h().get('/plugins/slack/1.1.0/schema');
        const response = await h().get('/plugins/slack/analytics', bearer(h().keys.acme));
        expect(response.statusCode).toBe(200);
        const body = response.json<{ downloads: number; versions: unknown[]; days: unknown[] }>();
        expect(body.downloads).toBe(3);
        expect(body.versions).toEqual(
          expect.arrayContaining([
            { version: '1.0.0', downloads: 1 },
            { version: '1.1.0', downloads: 2 },
          ]),
        );
        expect(body.days).toEqual([
          { date: '2026-03-01', version: '1.0.0', downloads: 1 },
          { date: '2026-03-02', version: '1.1.0', downloads: 2 },
        ]);
        expect((await h().get('/plugins/slack/analytics', bearer(h().keys.other))).statusCode).toBe(
          403,
        );
        expect((await h().get('/plugins/slack/analytics')).statusCode).toBe(401);
      });
    },
  );
}
