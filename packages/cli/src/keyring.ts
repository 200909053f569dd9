import * as openpgp from 'openpgp';
import type { SigningKeyInfo } from '@weft/core';
import type { RegistryClient } from './registry-client.js';

/** A public key to verify against. */
export interface TrustedKey {
  armored: string;
  fingerprint: string;
  key_ids: string[];
}

/** The public keys of an armored keyring file (one or several keys). */
export async function fromArmored(text: string): Promise<TrustedKey[]> {
  const keys = await openpgp.readKeys({ armoredKeys: text });
  return keys.map((key) => ({
    armored: key.armor(),
    fingerprint: key.getFingerprint().toUpperCase(),
    key_ids: key.getKeyIDs().map((id) => id.toHex().toUpperCase()),
  }));
}

/** The keys an owner uploaded to the registry (trusting the registry). */
export async function fromRegistry(client: RegistryClient, owner: string): Promise<TrustedKey[]> {
  const answer = await client.expectOk('GET', `/owners/${encodeURIComponent(owner)}/keys`);
  const keys = (answer.json as { keys: SigningKeyInfo[] }).keys;
  return (await Promise.all(keys.map((k) => fromArmored(k.armored_key)))).flat();
}
