import { describe } from 'vitest';
import { MemoryAuditStore } from '@weft/runtime';
import { auditStoreContract } from './audit-store.contract.js';
import { openTestAuditStore } from './audit-test-store.js';

const url = process.env['WEFT_TEST_DATABASE_URL'];

describe('audit store in memory', () => {
  auditStoreContract(async () => {
    const store = new MemoryAuditStore();
    return { store, replica: async () => store, dispose: async () => {} };
  });
});

describe('audit store on SQLite', () => {
  auditStoreContract(async () => {
    const opened = await openTestAuditStore('sqlite');
    return {
      store: opened.audit,
      replica: opened.replica,
      tamper: opened.tamper,
      dispose: opened.dispose,
    };
  });
});

describe.skipIf(!url)('audit store on PostgreSQL (set WEFT_TEST_DATABASE_URL to run)', () => {
  auditStoreContract(async () => {
    const opened = await openTestAuditStore('postgres', url);
    return {
      store: opened.audit,
      replica: opened.replica,
      tamper: opened.tamper,
      dispose: opened.dispose,
    };
  });
});
