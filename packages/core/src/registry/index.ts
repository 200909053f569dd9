export * from './definition.js';
export * from './plugin-definition.js';
export * from './resources.js';
export * from './keys.js';
export * from './store.js';
export * from './search-text.js';
export * from './plugin-json-schema.js';
export * from './schema-diff.js';
