export * from './wire.js';
export * from './store.js';
