export { TestIdentityProvider, unsignedToken } from './identity-provider.js';
export type { SignOptions } from './identity-provider.js';
