export * from './egress.js';
export * from './lingering-close.js';
