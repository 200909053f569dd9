export * from './backoff.js';
export * from './retry-after.js';
