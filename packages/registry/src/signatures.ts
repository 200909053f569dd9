import canonicalize from 'canonicalize';
import type * as OpenPgp from 'openpgp';
import { ValidationError, type PluginDefinition, type SigningKeyRecord } from '@weft/core';

/** OpenPGP, loaded when a key or signature is first read: most importers only parse definitions. */
const loadOpenPgp = (): Promise<typeof OpenPgp> => import('openpgp');

/** The bytes a signature (docs/registry.md#checksums-and-signatures) signs: RFC 8785 canonical JSON of the definition without `signature`. */
export function signedPayload(definition: PluginDefinition | Record<string, unknown>): Uint8Array {
  const { signature: _signature, ...rest } = definition as Record<string, unknown>;
  return new TextEncoder().encode(canonicalize(rest) ?? '');
}

/** Reads an armored OpenPGP public key, refusing private keys and garbage. */
export async function readPublicKey(
  armored: string,
  owner: string,
  at: string,
): Promise<SigningKeyRecord> {
  const openpgp = await loadOpenPgp();
  let key: OpenPgp.Key;
  try {
    key = await openpgp.readKey({ armoredKey: armored });
  } catch (error) {
    throw new ValidationError(`not an armored OpenPGP public key: ${(error as Error).message}`, {
      field: 'armored_key',
      constraint: 'openpgp_key',
    });
  }
  if (key.isPrivate()) {
    throw new ValidationError(
      'this is a private key; upload the public key only (gpg --armor --export)',
      {
        field: 'armored_key',
        constraint: 'public_key',
      },
    );
  }
  return {
    owner,
    fingerprint: key.getFingerprint().toUpperCase(),
    key_id: key.getKeyID().toHex().toUpperCase(),
    key_ids: key.getKeyIDs().map((id) => id.toHex().toUpperCase()),
    armored: key.armor(),
    user_ids: key.getUserIDs(),
    created_at: at,
  };
}

/** Outcome of {@link verifyDefinitionSignature}. */
export type SignatureCheck =
  | { ok: true; keyId: string; fingerprint: string }
  | { ok: false; constraint: 'known_key' | 'valid_signature'; message: string };

/** Normalises `0xABCD...`, fingerprints and key ids to upper-case hex without prefix. */
function normaliseKeyId(id: string): string {
  return id.replace(/^0x/i, '').toUpperCase();
}

/**
 * Verifies the `signature` block of a definition against candidate public keys: the key named
 * by `signature.key_id` must be among them, and the signature must verify over
 * {@link signedPayload}.
 */
export async function verifyDefinitionSignature(
  definition: PluginDefinition,
  keys: readonly Pick<SigningKeyRecord, 'armored' | 'fingerprint' | 'key_ids'>[],
): Promise<SignatureCheck> {
  const block = definition.signature;
  if (!block)
    return { ok: false, constraint: 'valid_signature', message: 'the definition is not signed' };
  const wanted = normaliseKeyId(block.key_id);
  const candidate = keys.find(
    (k) => k.fingerprint === wanted || k.fingerprint.endsWith(wanted) || k.key_ids.includes(wanted),
  );
  if (!candidate) {
    return {
      ok: false,
      constraint: 'known_key',
      message: `no public key with id ${wanted} is known for this owner; upload it first (POST /keys)`,
    };
  }
  try {
    const openpgp = await loadOpenPgp();
    const verificationKey = await openpgp.readKey({ armoredKey: candidate.armored });
    const signature = await openpgp.readSignature({ armoredSignature: block.signature });
    const message = await openpgp.createMessage({ binary: signedPayload(definition) });
    const result = await openpgp.verify({
      message,
      signature,
      verificationKeys: verificationKey,
      format: 'binary',
    });
    const first = result.signatures[0];
    if (!first)
      return {
        ok: false,
        constraint: 'valid_signature',
        message: 'the signature block holds no signature',
      };
    await first.verified;
    return {
      ok: true,
      keyId: first.keyID.toHex().toUpperCase(),
      fingerprint: candidate.fingerprint,
    };
  } catch (error) {
    return {
      ok: false,
      constraint: 'valid_signature',
      message: `the signature does not verify: ${(error as Error).message}`,
    };
  }
}

/** Signs a definition with an armored private key: returns the definition with its `signature`. */
export async function signDefinition(
  definition: PluginDefinition,
  armoredPrivateKey: string,
  passphrase?: string,
): Promise<PluginDefinition> {
  const openpgp = await loadOpenPgp();
  let privateKey = await openpgp.readPrivateKey({ armoredKey: armoredPrivateKey });
  if (passphrase !== undefined) privateKey = await openpgp.decryptKey({ privateKey, passphrase });
  const message = await openpgp.createMessage({ binary: signedPayload(definition) });
  const signature = await openpgp.sign({
    message,
    signingKeys: privateKey,
    detached: true,
    format: 'armored',
  });
  return {
    ...definition,
    signature: {
      type: 'gpg',
      key_id: privateKey.getKeyID().toHex().toUpperCase(),
      signature: signature as string,
    },
  };
}
