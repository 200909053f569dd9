import { describe } from 'vitest';
import { executionsStoreContract } from './executions-store.contract.js';
import { openTestExecutionsStore } from './executions-test-store.js';

const url = process.env['WEFT_TEST_DATABASE_URL'];

describe('executions store in memory', () => {
  executionsStoreContract(() => openTestExecutionsStore('memory'));
});

describe('executions store on SQLite', () => {
  executionsStoreContract(() => openTestExecutionsStore('sqlite'));
});

describe.skipIf(!url)('executions store on PostgreSQL (set WEFT_TEST_DATABASE_URL to run)', () => {
  executionsStoreContract(() => openTestExecutionsStore('postgres', url));
});
