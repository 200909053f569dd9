export { bearerToken, MAX_TOKEN_LENGTH } from './bearer.js';
export {
  apiKeyPrincipal,
  generateApiKey,
  hashApiKey,
  isApiKeyToken,
  KEY_PREFIX,
  verifyApiKey,
} from './api-keys.js';
export type { ApiKeyInit, ApiKeyStore } from './api-keys.js';
export { createApiKey } from './create-api-key.js';
export { revokeApiKey } from './revoke-api-key.js';
export {
  parseAccessPolicy,
  MAX_ACCESS_FILE_BYTES,
  MAX_ACCESS_ROLES,
  MAX_ROLE_PERMISSIONS,
} from './access-file.js';
export { Authenticator } from './authenticator.js';
export type { Authenticate, AuthenticatorOptions, TokenVerifier } from './authenticator.js';
export { requirePrincipal, principalOf } from './http-hooks.js';
export { OidcVerifier } from './oidc/verifier.js';
export { compileOidcOptions, isLoopbackUrl, OIDC_ALGORITHMS } from './oidc/options.js';
export type { OidcOptions, CompiledOidcOptions, OidcOptionLabels } from './oidc/options.js';
export { claimAt } from './oidc/claims.js';
export { discoverSignInEndpoints } from './oidc/discovery.js';
export type { SignInEndpoints } from './oidc/discovery.js';
export { compileIdentityOptions, identityOptionsFromEnv } from './identity-options.js';
export type {
  IdentityServerOptions,
  CompiledIdentityOptions,
  ConsoleSignIn,
} from './identity-options.js';
