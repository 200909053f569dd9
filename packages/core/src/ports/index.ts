export * from './execution-context.js';
export * from './action-invoker.js';
export * from './secrets-provider.js';
export * from './clock.js';
export * from './events.js';
export * from './broker.js';
export * from './event-source.js';
