export * from './codes.js';
export * from './weft-error.js';
export * from './codec.js';
export * from './error-schema.js';
export * from './error-text.js';
