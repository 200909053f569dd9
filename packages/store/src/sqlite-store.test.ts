import { describe } from 'vitest';
import { registryStoreContract } from './registry-store.contract.js';
import { openTestStore } from './test-stores.js';

describe('SQLite store', () => {
  registryStoreContract(() => openTestStore('sqlite'));
});
