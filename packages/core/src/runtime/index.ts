export * from './status.js';
export * from './records.js';
export * from './store.js';
export * from './execution.js';
export * from './time-ordered-id.js';
export * from './stats.js';
