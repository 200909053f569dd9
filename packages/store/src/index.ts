export { openStore, compileStoreOptions, redactUrl } from './open.js';
export type { StoreOptions, CompiledStoreOptions, OpenedStore } from './open.js';
export type { Dialect } from './database.js';
export { openTestStore } from './test-stores.js';
export type { TestStore } from './test-stores.js';
