import { Type, type Static } from '@weft/core/typebox';
import { MAX_GRANT_LENGTH, MAX_KEY_GRANTS, ROLE_PATTERN } from '../identity/patterns.js';
import { PERMISSION_PATTERN } from '../workflow/authorization.js';

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
  /** Roles the key grants (machines' roles; an access file may add permissions to them). */
  roles: string[];
  /** Permissions the key grants, `<resource>:<verb>`. */
  permissions: string[];
  created_at: string;
  /** ISO time the key was revoked; absent while it is valid. A revoked key is refused. */
  revoked_at?: string;
}

/** A role an API key carries. */
const KeyRole = Type.String({
  minLength: 1,
  maxLength: MAX_GRANT_LENGTH,
  pattern: ROLE_PATTERN,
  description: 'A role name: a letter or digit, then letters, digits and _ . : / @ -',
});

/** A permission an API key carries. */
const KeyPermission = Type.String({
  maxLength: MAX_GRANT_LENGTH,
  pattern: PERMISSION_PATTERN,
  description: 'A permission in <resource>:<verb> form, e.g. payments:write',
});

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
    roles: Type.Optional(
      Type.Array(KeyRole, {
        maxItems: MAX_KEY_GRANTS,
        description: 'Roles the key grants (for machines; an access file may map them)',
      }),
    ),
    permissions: Type.Optional(
      Type.Array(KeyPermission, {
        maxItems: MAX_KEY_GRANTS,
        description: 'Permissions the key grants',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateKeyRequest = Static<typeof CreateKeyRequest>;

/** A newly created key: the only time the key itself is shown. */
export const CreatedKey = Type.Object({
  name: Type.String(),
  owner: Type.String(),
  key: Type.String({ description: 'The bearer token; shown once' }),
  roles: Type.Array(Type.String(), { description: 'Roles the key grants' }),
  permissions: Type.Array(Type.String(), { description: 'Permissions the key grants' }),
  created_at: Type.String({ format: 'date-time' }),
});
export type CreatedKey = Static<typeof CreatedKey>;

/**
 * Longest time a process answers from its cached copy of an API key, in ms: a key revoked on one
 * server is refused by every server sharing its database within this time.
 */
export const API_KEY_CACHE_MS = 500;

/** `DELETE /auth/keys/{id}` (admin key): the revoked key, without its hash. */
export const RevokedKey = Type.Object({
  id: Type.String({ description: 'Public id of the key (the 12 hex digits after weft_)' }),
  name: Type.String(),
  owner: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  revoked_at: Type.String({
    format: 'date-time',
    description: 'When it was first revoked; every server refuses it within 0.5 s',
  }),
});
export type RevokedKey = Static<typeof RevokedKey>;

/** `GET /auth/whoami`: the caller as the server sees it (to check an identity provider's claims). */
export const WhoAmI = Type.Object({
  kind: Type.Union([Type.Literal('api_key'), Type.Literal('oidc'), Type.Literal('local')], {
    description: 'How the caller authenticated',
  }),
  subject: Type.String({ description: "The API key's id or the token's sub" }),
  owner: Type.String({
    description:
      "The caller's workspace: the namespace of what it creates and sees (the key's owner; for a token, the owner claim, WEFT_OIDC_OWNER or oidc-users)",
  }),
  name: Type.String(),
  admin: Type.Boolean(),
  roles: Type.Array(Type.String()),
  permissions: Type.Array(Type.String(), {
    description: 'Including those the access file grants to the roles',
  }),
});
export type WhoAmI = Static<typeof WhoAmI>;

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
