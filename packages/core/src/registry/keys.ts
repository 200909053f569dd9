import { Type, type Static } from '@sinclair/typebox';

/** An API key as stored: never the key itself, only its SHA-256. */
export interface ApiKeyRecord {
  /** Public id, the part of the key before its secret; looked up, then the hash is compared. */
  id: string;
  name: string;
  owner: string;
  /** Hex SHA-256 of the whole key. */
  hash: string;
  /** Admin keys may create other keys over HTTP. */
  admin: boolean;
  created_at: string;
}

/** A caller authenticated by its key. */
export interface Principal {
  keyId: string;
  name: string;
  owner: string;
  admin: boolean;
}

/** Body of `POST /auth/keys` (admin key). */
export const CreateKeyRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 128, description: 'Label of the key' }),
    owner: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$',
        description: 'Organisation or user owning what the key publishes (default: the name)',
      }),
    ),
    admin: Type.Optional(Type.Boolean({ description: 'Whether the new key may create keys' })),
  },
  { additionalProperties: false },
);
export type CreateKeyRequest = Static<typeof CreateKeyRequest>;

/** A newly created key: the only time the key itself is shown. */
export const CreatedKey = Type.Object({
  name: Type.String(),
  owner: Type.String(),
  key: Type.String({ description: 'The bearer token; shown once' }),
  created_at: Type.String({ format: 'date-time' }),
});
export type CreatedKey = Static<typeof CreatedKey>;

/** An uploaded OpenPGP public key of an owner. */
export interface SigningKeyRecord {
  owner: string;
  /** Upper-case hex fingerprint. */
  fingerprint: string;
  /** Upper-case 16 hex digit key id of the primary key. */
  key_id: string;
  /** Key ids of the primary key and its subkeys, upper-case hex. */
  key_ids: string[];
  armored: string;
  user_ids: string[];
  created_at: string;
}

/** Body of `POST /keys`: an armored OpenPGP public key. */
export const AddSigningKeyRequest = Type.Object(
  { armored_key: Type.String({ minLength: 1, maxLength: 65536 }) },
  { additionalProperties: false },
);
export type AddSigningKeyRequest = Static<typeof AddSigningKeyRequest>;

/** Public view of an uploaded signing key. */
export const SigningKeyInfo = Type.Object({
  owner: Type.String(),
  fingerprint: Type.String(),
  key_id: Type.String(),
  user_ids: Type.Array(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  armored_key: Type.String(),
});
export type SigningKeyInfo = Static<typeof SigningKeyInfo>;
