export * from './trigger-store.js';
export * from './token-bucket.js';
export * from './memory-trigger-store.js';
export * from './deployment-store.js';
export * from './memory-deployment-store.js';
export * from './deployment-wire.js';
