export * from './messages.js';
export * from './worker.js';
export * from './dispatcher.js';
