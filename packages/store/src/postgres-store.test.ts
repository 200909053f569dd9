import { describe } from 'vitest';
import { registryStoreContract } from './registry-store.contract.js';
import { openTestStore } from './test-stores.js';

const url = process.env['WEFT_TEST_DATABASE_URL'];

describe.skipIf(!url)('PostgreSQL store (set WEFT_TEST_DATABASE_URL to run)', () => {
  registryStoreContract(() => openTestStore('postgres', url));
});
