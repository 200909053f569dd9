import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { MAX_GROUP_WRITES, SqliteGroupCommit, TURN_GROUPS } from './sqlite-group-commit.js';

let database: BetterSqlite3.Database;
beforeEach(() => {
  database = new BetterSqlite3(':memory:');
  database.exec('CREATE TABLE t (v INTEGER)');
});
afterEach(() => database.close());

const insert = (group: SqliteGroupCommit, v: number) => () =>
  group.affected('INSERT INTO t (v) VALUES (?)', [v]);

it('commits the writes of later callbacks of a turn together once many groups committed in it', async () => {
  // TURN_GROUPS callbacks commit alone, the next two together: one commit fewer than writes.
  const callbacks = TURN_GROUPS + 2;
  let counted = false;
  const group = new SqliteGroupCommit(database, { after: callbacks, then: () => (counted = true) });
  // Callbacks of one turn, each asking for one write (as many requests' I/O would).
  const written = await new Promise<Promise<number>[]>((resolve) => {
    const writes: Promise<number>[] = [];
    for (let i = 0; i < callbacks; i++) {
      setImmediate(() => {
        writes.push(group.run(insert(group, i)));
        if (writes.length === callbacks) resolve(writes);
      });
    }
  });
  expect(await Promise.all(written)).toEqual(Array.from({ length: callbacks }, () => 1));
  expect(counted).toBe(false);
  await group.run(insert(group, callbacks));
  expect(counted).toBe(true);
  expect(database.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: callbacks + 1 });
});

it('commits a chain of writes, each asked for once the last committed, within the turn', async () => {
  // A run journaling its steps one after the other: no write waits for the next turn.
  const group = new SqliteGroupCommit(database);
  let turned = false;
  setImmediate(() => (turned = true));
  for (let i = 0; i < TURN_GROUPS; i++) await group.run(insert(group, i));
  expect(turned).toBe(false);
});

it('commits at most MAX_GROUP_WRITES writes together, the rest in the next turn', async () => {
  // Writes asked for in one turn (as many requests would): the first group holds the loop only
  // for its share, the answers of its writes go out before the rest is written.
  const group = new SqliteGroupCommit(database);
  const writes = Array.from({ length: MAX_GROUP_WRITES + 5 }, (_, i) =>
    group.run(insert(group, i)),
  );
  await Promise.all(writes.slice(0, MAX_GROUP_WRITES));
  const count = () => (database.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n;
  expect(count()).toBe(MAX_GROUP_WRITES);
  expect(await Promise.all(writes)).toEqual(writes.map(() => 1));
  expect(count()).toBe(MAX_GROUP_WRITES + 5);
});
