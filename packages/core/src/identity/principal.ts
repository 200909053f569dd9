/**
 * How a caller proved who it is: a weft API key (`api_key`), a token of the external identity
 * provider (`oidc`), or a declaration on the command line of a local run (`local`, nothing
 * proved: `weft workflow run --role/--permission`).
 */
export type CredentialKind = 'api_key' | 'oidc' | 'local';

/** Every credential kind, in a fixed order. */
export const CREDENTIAL_KINDS: readonly CredentialKind[] = ['api_key', 'oidc', 'local'];

/**
 * Who is calling, whatever the credential: the one shape every authorization check reads.
 *
 * - `subject` identifies the caller within its kind: the API key's public id, the token's `sub`,
 *   or the name a local run declares.
 * - `owner` is the workspace: the namespace of what the caller creates and sees (plugins,
 *   deployments, executions, audit entries), one per organisation whatever the credential: the
 *   key's owner; for a token's user the value of the owner claim, the fixed owner of the issuer,
 *   or {@link DEFAULT_OIDC_OWNER} (docs/authorization.md#workspaces); the declared owner of a
 *   local run. A key and a token naming the same owner are in the same workspace.
 * - `keyId` names the credential, i.e. the person, for per-credential state (usage, idempotency
 *   keys, callback signing secrets): the key's public id; `oidc:<sub>` (API key ids never hold a
 *   colon, so the two never meet); `local:<subject>`. Two users of one workspace never share it.
 * - `roles` and `permissions` are what the credential grants, permissions already expanded by the
 *   access policy (see `expandPrincipal`). Both are sorted and free of duplicates.
 */
export interface Principal {
  readonly kind: CredentialKind;
  readonly subject: string;
  readonly owner: string;
  readonly keyId: string;
  /** A human label: the key's name, the user's `preferred_username`/`email`/`sub`. */
  readonly name: string;
  /** Admin keys may create keys and read `/metrics`; tokens are never admin. */
  readonly admin: boolean;
  readonly roles: readonly string[];
  readonly permissions: readonly string[];
}

/** Credential id of a token's user: `oidc:<sub>`, the person, whatever their workspace. */
export function oidcKeyId(subject: string): string {
  return `oidc:${subject}`;
}

/**
 * The owner of every identity-provider user when neither `WEFT_OIDC_OWNER_CLAIM` nor
 * `WEFT_OIDC_OWNER` is set: one shared workspace for the issuer. A valid owner name, so that an
 * operator can give API keys `--owner oidc-users` to meet those users.
 */
export const DEFAULT_OIDC_OWNER = 'oidc-users';

/** Sorted, de-duplicated, frozen copy of a list of grants (the empty list is shared). */
export function grantList(values: Iterable<string>): readonly string[] {
  const sorted = [...new Set(values)].sort();
  return sorted.length === 0 ? NO_GRANTS : Object.freeze(sorted);
}

/** The shared empty list of roles or permissions. */
export const NO_GRANTS: readonly string[] = Object.freeze([]);

/** What {@link keyPrincipal} needs: a stored API key's fields. */
export interface KeyPrincipalInit {
  /** The key's public id. */
  keyId: string;
  owner: string;
  /** Default: the key id. */
  name?: string;
  admin?: boolean;
  roles?: Iterable<string>;
  permissions?: Iterable<string>;
}

/** The principal of an API key (before an access policy adds its roles' permissions). */
export function keyPrincipal(init: KeyPrincipalInit): Principal {
  return {
    kind: 'api_key',
    subject: init.keyId,
    owner: init.owner,
    keyId: init.keyId,
    name: init.name ?? init.keyId,
    admin: init.admin ?? false,
    roles: grantList(init.roles ?? []),
    permissions: grantList(init.permissions ?? []),
  };
}

/** What {@link localPrincipal} needs: a run on this machine declares who it acts as. */
export interface LocalPrincipalInit {
  /** Default `local`. */
  subject?: string;
  /** Default: the subject. */
  owner?: string;
  roles?: Iterable<string>;
  permissions?: Iterable<string>;
}

/**
 * The principal of a local run (`weft workflow run --role R --permission P`): nothing is proved,
 * the person at the keyboard declares what the run may do.
 */
export function localPrincipal(init: LocalPrincipalInit = {}): Principal {
  const subject = init.subject ?? 'local';
  return {
    kind: 'local',
    subject,
    owner: init.owner ?? subject,
    keyId: `local:${subject}`,
    name: subject,
    admin: false,
    roles: grantList(init.roles ?? []),
    permissions: grantList(init.permissions ?? []),
  };
}
