export * from './principal.js';
export * from './grants.js';
export * from './access-policy.js';
export * from './patterns.js';
export { AuthConfig } from './auth-config.js';
