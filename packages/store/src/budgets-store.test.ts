import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe } from 'vitest';
import { budgetLedgerContract, type TestBudgetLedger } from './budgets-store.contract.js';
import { openStore, type OpenedStore } from './open.js';
import { dropTestSchema } from './test-stores.js';

const url = process.env['WEFT_TEST_DATABASE_URL'];

async function openLedger(kind: 'sqlite' | 'postgres'): Promise<TestBudgetLedger> {
  const dir = kind === 'sqlite' ? mkdtempSync(join(tmpdir(), 'weft-budgets-')) : undefined;
  const schema = `weft_test_${randomBytes(6).toString('hex')}`;
  const opened: OpenedStore[] = [];
  const open = async () => {
    const store =
      kind === 'sqlite'
        ? await openStore({ kind: 'sqlite', dataDir: dir! })
        : await openStore({ kind: 'postgres', url: url!, schema, poolSize: 4 });
    opened.push(store);
    return store.budgets;
  };
  const ledger = await open();
  return {
    ledger,
    // SQLite: one connection per process (better-sqlite3 waits for a lock synchronously, so two
    // connections of one thread would wait on each other); replicas are PostgreSQL's.
    replica: kind === 'sqlite' ? async () => ledger : open,
    dispose: async () => {
      for (const store of opened) {
        await store.executions.close();
        await store.registry.close();
      }
      if (dir) rmSync(dir, { recursive: true, force: true });
      if (kind !== 'postgres') return;
      await dropTestSchema(url!, schema);
    },
  };
}

describe('SQLite budget ledger', () => {
  budgetLedgerContract(() => openLedger('sqlite'));
});

describe.skipIf(!url)('PostgreSQL budget ledger (set WEFT_TEST_DATABASE_URL to run)', () => {
  budgetLedgerContract(() => openLedger('postgres'));
});
