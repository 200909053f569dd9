export * from './nesting.js';
