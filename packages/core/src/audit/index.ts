export * from './entry.js';
export * from './store.js';
export * from './chain.js';
