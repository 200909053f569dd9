import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SqliteGroupCommit } from './sqlite-group-commit.js';

let database: BetterSqlite3.Database;
beforeEach(() => {
  database = new BetterSqlite3(':memory:');
  database.exec('CREATE TABLE t (v INTEGER)');
});
afterEach(() => database.close());

const insert = (group: SqliteGroupCommit, v: number) => () =>
  group.affected('INSERT INTO t (v) VALUES (?)', [v]);

it('commits the writes of later callbacks of a turn together once a group committed in it', async () => {
  let commits = 0;
  const counted = { after: 3, then: () => (commits = 3) };
  const group = new SqliteGroupCommit(database, counted);
  // Three callbacks of one turn, each asking for one write (as three requests' I/O would).
  const written = await new Promise<Promise<number>[]>((resolve) => {
    const writes: Promise<number>[] = [];
    setImmediate(() => writes.push(group.run(insert(group, 1))));
    setImmediate(() => writes.push(group.run(insert(group, 2))));
    setImmediate(() => {
      writes.push(group.run(insert(group, 3)));
      resolve(writes);
    });
  });
  expect(await Promise.all(written)).toEqual([1, 1, 1]);
  // The first alone, the other two in one group: two commits, not three.
  expect(commits).toBe(0);
  await group.run(insert(group, 4));
  expect(commits).toBe(3);
  expect(database.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 4 });
});
