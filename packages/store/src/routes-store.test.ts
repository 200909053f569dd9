import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';
import { routesStoreContract } from './routes-store.contract.js';
import { openTestRoutesStore } from './routes-test-store.js';
import { MemoryRoutesStore } from './memory/index.js';

const url = process.env['WEFT_TEST_DATABASE_URL'];

describe('in-memory routing table', () => {
  routesStoreContract(async () => {
    const routes = new MemoryRoutesStore();
    return { routes, replica: async () => routes, dispose: async () => undefined };
  });
});

describe('SQLite routing table', () => {
  routesStoreContract(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-routes-'));
    const opened = await openTestRoutesStore('sqlite', undefined, dir);
    return {
      ...opened,
      dispose: async () => {
        await opened.dispose();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
});

describe.skipIf(!url)('PostgreSQL routing table (set WEFT_TEST_DATABASE_URL to run)', () => {
  routesStoreContract(() => openTestRoutesStore('postgres', url));
});
