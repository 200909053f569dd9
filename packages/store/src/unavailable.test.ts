import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { UnavailableError } from '@weft/core';
import { openStore } from './open.js';
import { asStoreError, isDatabaseUnavailable } from './unavailable.js';

const url = process.env['WEFT_TEST_DATABASE_URL'];

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('a database that cannot be reached', () => {
  it.skipIf(!url)(
    'is UNAVAILABLE with backend "database", without the address it tried (PostgreSQL)',
    async () => {
      const port = await closedPort();
      const target = new URL(url!);
      target.host = `127.0.0.1:${port}`;
      const error = await openStore({ kind: 'postgres', url: target.toString() }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UnavailableError);
      const unavailable = error as UnavailableError;
      expect(unavailable.details).toMatchObject({ backend: 'database', retry_after: 5 });
      expect(unavailable.message).not.toContain(String(port));
      expect(unavailable.message).not.toContain('127.0.0.1');
      // The driver's words stay on the error for the server's log.
      expect((unavailable.cause as { code?: string }).code).toBe('ECONNREFUSED');
    },
  );

  it('is recognised in the errors SQLite gives for a file it cannot open or that stays locked', () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-unavailable-'));
    let cantOpen: unknown;
    try {
      // A directory where the database file should be.
      new BetterSqlite3(dir);
    } catch (error) {
      cantOpen = error;
    }
    expect((cantOpen as { code?: string }).code).toBe('SQLITE_CANTOPEN');
    expect(isDatabaseUnavailable(cantOpen)).toBe(true);

    const holder = new BetterSqlite3(join(dir, 'weft.db'));
    const waiter = new BetterSqlite3(join(dir, 'weft.db'), { timeout: 0 });
    holder.exec('CREATE TABLE t (x); BEGIN EXCLUSIVE; INSERT INTO t VALUES (1)');
    let busy: unknown;
    try {
      waiter.prepare('SELECT * FROM t').all();
    } catch (error) {
      busy = error;
    }
    holder.exec('COMMIT');
    holder.close();
    waiter.close();
    expect((busy as { code?: string }).code).toBe('SQLITE_BUSY');
    expect(asStoreError(busy)).toBeInstanceOf(UnavailableError);
  });

  it('leaves errors of the statement itself as they are', () => {
    const unique = Object.assign(new Error('duplicate key value'), { code: '23505' });
    expect(asStoreError(unique)).toBe(unique);
    const syntax = Object.assign(new Error('no such table: x'), { code: 'SQLITE_ERROR' });
    expect(asStoreError(syntax)).toBe(syntax);
  });
});
