export * from './store.js';
export * from './execution.js';
