import { readFileSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { InvalidArgumentError, type Command } from 'commander';
import {
  expandPrincipal,
  isKeyRole,
  isPermission,
  localPrincipal,
  ValidationError,
  WeftError,
  type Principal,
} from '@weft/core';

/** The flags saying who a local run acts as, and whether its approval is given up front. */
export interface IdentityFlags {
  /** `--identity <jwt|@file>`: a token of the identity provider (`WEFT_OIDC_*`). */
  identity?: string;
  /** `--role R`, repeatable: declared roles. */
  role: string[];
  /** `--permission P`, repeatable: declared permissions. */
  permission: string[];
  /** `--approve`: approve a run that requires approval, without asking. */
  approve?: boolean;
}

/** Adds `--identity`, `--role`, `--permission` and `--approve` to a command that runs workflows. */
export function addIdentityOptions(command: Command): Command {
  return command
    .option(
      '--identity <jwt|@file>',
      "run as the user of this identity-provider token (or the file's), verified with WEFT_OIDC_*",
    )
    .option(
      '--role <role>',
      'declare a role the run holds (authorization blocks); repeatable',
      grantParser(isKeyRole, 'a role name (a letter or digit, then letters, digits, _ . : / @ -)'),
      [],
    )
    .option(
      '--permission <resource:verb>',
      'declare a permission the run holds; repeatable',
      grantParser(isPermission, 'a permission in <resource>:<verb> form (lowercase)'),
      [],
    )
    .option(
      '--approve',
      "approve a run that requires approval, and agents' tool calls that need approval, without asking on the terminal",
    );
}

/** Whether any of the identity flags is given (they do not apply to `--cloud`). */
export function hasIdentityFlags(flags: IdentityFlags): boolean {
  return (
    flags.identity !== undefined ||
    flags.role.length > 0 ||
    flags.permission.length > 0 ||
    flags.approve === true
  );
}

function grantParser(valid: (value: string) => boolean, expected: string) {
  return (value: string, previous: string[]): string[] => {
    if (!valid(value)) throw new InvalidArgumentError(`"${value}" is not ${expected}.`);
    return previous.includes(value) ? previous : [...previous, value];
  };
}

/**
 * The principal of a local run: the verified user of `--identity`, or the one `--role` and
 * `--permission` declare (named after the OS user), with the permissions `WEFT_ACCESS_FILE`
 * grants to its roles; undefined without those flags. Throws `VALIDATION` (exit 2) for flags
 * that exclude each other or settings that are missing, `UNAUTHORIZED` for a token that fails
 * verification and `UNAVAILABLE` when the provider's keys cannot be read: never a principal
 * that was not checked. `@weft/identity` (jose, the access file's YAML) is imported only when a
 * token is verified or an access file read: most runs do neither.
 */
export async function resolvePrincipal(
  flags: IdentityFlags,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Principal | undefined> {
  const declared = flags.role.length > 0 || flags.permission.length > 0;
  if (flags.identity !== undefined && declared) {
    throw usage(
      '--identity and --role/--permission exclude each other: a token brings its own roles and permissions',
      'identity',
    );
  }
  if (flags.identity === undefined && !declared) return undefined;
  const principal =
    flags.identity !== undefined
      ? await verifiedPrincipal(flags.identity, env)
      : localPrincipal({ subject: osUser(), roles: flags.role, permissions: flags.permission });
  const accessFile = env['WEFT_ACCESS_FILE']?.trim();
  if (!accessFile) return principal;
  let text: string;
  try {
    text = readFileSync(accessFile, 'utf8');
  } catch (error) {
    throw usage(
      `cannot read WEFT_ACCESS_FILE ${accessFile}: ${(error as Error).message}`,
      'WEFT_ACCESS_FILE',
    );
  }
  const { parseAccessPolicy } = await import('@weft/identity');
  return expandPrincipal(principal, parseAccessPolicy(text, accessFile));
}

/** The user of an `--identity` token, verified with the `WEFT_OIDC_*` settings of `env`. */
async function verifiedPrincipal(value: string, env: NodeJS.ProcessEnv): Promise<Principal> {
  const { compileIdentityOptions, identityOptionsFromEnv, MAX_TOKEN_LENGTH, OidcVerifier } =
    await import('@weft/identity');
  const oidc = compileIdentityOptions(identityOptionsFromEnv(env)).oidc;
  if (!oidc) {
    throw usage(
      '--identity needs the identity provider whose tokens to accept: set WEFT_OIDC_ISSUER and WEFT_OIDC_AUDIENCE (as for weft server)',
      'WEFT_OIDC_ISSUER',
    );
  }
  const token = readToken(value, MAX_TOKEN_LENGTH);
  if (token.length > MAX_TOKEN_LENGTH)
    throw usage(`--identity: the token is longer than ${MAX_TOKEN_LENGTH} characters`, 'identity');
  return new OidcVerifier({ ...oidc, verifiedCacheSize: 0 }).verify(token);
}

/** The token of `--identity`: as given, or the content of the file after `@`, trimmed. */
function readToken(value: string, maxLength: number): string {
  if (!value.startsWith('@')) return value.trim();
  const file = value.slice(1);
  try {
    if (statSync(file).size > maxLength * 2)
      throw usage(`--identity: ${file} is too large to hold a token`, 'identity');
    return readFileSync(file, 'utf8').trim();
  } catch (error) {
    if (error instanceof WeftError) throw error;
    throw usage(`--identity: cannot read ${file}: ${(error as Error).message}`, 'identity');
  }
}

/** The name of the OS user, the subject of a declared principal (`local` when unknown). */
function osUser(): string {
  try {
    return userInfo().username || 'local';
  } catch {
    return 'local';
  }
}

function usage(message: string, field: string): ValidationError {
  return new ValidationError(message, { field, constraint: 'usage' });
}

/** The message of an `--identity` that could not be verified (exit 2), saying why. */
export function identityFailure(error: WeftError): string {
  if (error.code === 'UNAVAILABLE')
    return `--identity could not be verified, so the run does not start: ${error.message}`;
  if (error.code === 'UNAUTHORIZED') {
    const reason = (error.details as { reason?: unknown }).reason;
    return `--identity refused: ${error.message}${typeof reason === 'string' ? ` (${reason})` : ''}`;
  }
  return error.message;
}
