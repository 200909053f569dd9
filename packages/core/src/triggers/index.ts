export * from './trigger-store.js';
export * from './deployment-store.js';
export * from './deployment-wire.js';
export * from './deploy-impact-wire.js';
