export * from './definition.js';
