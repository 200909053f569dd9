export * from './wire.js';
export * from './store.js';
export * from './memory-store.js';
