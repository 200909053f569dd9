export { TestIdentityProvider, unsignedToken } from './identity-provider.js';
export type { ClaimChanges, SignOptions } from './identity-provider.js';
