export * from './definition.js';
export * from './reference.js';
