export * from './store.js';
export * from './execution.js';
export * from './time-ordered-id.js';
