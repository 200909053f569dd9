import { Authenticator, OidcVerifier, type ApiKeyStore } from '@weft/identity';
import { AccessFileWatcher, type AccessFileLog } from './access-file-watcher.js';
import type { CompiledIdentityOptions } from '@weft/identity';

/** The server's one authenticator, and what keeps it current. */
export interface ServerIdentity {
  authenticator: Authenticator;
  /** The access file's watcher, when `WEFT_ACCESS_FILE` is set. */
  accessFile: AccessFileWatcher | undefined;
  /** Stops watching the access file. */
  close(): void;
}

/**
 * Builds the authenticator every route uses: API keys from the store, identity-provider tokens
 * when `WEFT_OIDC_ISSUER` is set, permissions by role from the access file. A bad access file
 * throws here, so the server does not start with it.
 */
export function openIdentity(
  options: CompiledIdentityOptions,
  keys: ApiKeyStore,
  log: AccessFileLog,
): ServerIdentity {
  const authenticator = new Authenticator({
    keys,
    ...(options.oidc ? { tokens: new OidcVerifier(options.oidc) } : {}),
  });
  if (options.oidc) {
    log.info(
      { issuer: options.oidc.issuer, audience: options.oidc.audience },
      'identity-provider tokens accepted',
    );
  }
  const accessFile = options.accessFile
    ? AccessFileWatcher.open(
        options.accessFile,
        options.accessFilePollMs,
        (policy) => authenticator.setAccessPolicy(policy),
        log,
      )
    : undefined;
  return { authenticator, accessFile, close: () => accessFile?.close() };
}
