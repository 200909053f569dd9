import { sql, type Kysely } from 'kysely';
import type { EventRow, JournalRow } from '@weft/core';
import type { Database, Dialect } from './database.js';

/**
 * Where the journal's rows are kept. On PostgreSQL, a row per step (`execution_steps`) and a row
 * per event (`execution_events`). On SQLite, one row of `execution_journal` per write (migration
 * `0030_journal_packed`), holding the steps and the events that write commits together: a write
 * dirties one page of the table and one of its index instead of a page of each of two tables
 * whose rows are split across more pages (SQLite's WAL writes each dirtied page at every commit,
 * so the packed row halves the bytes and the system calls of a journaled step).
 */
export interface JournalTables {
  /** Appends steps (replacing those of the same path) and events (ignoring known seqs). */
  append(
    db: Kysely<Database>,
    id: string,
    steps: readonly JournalRow[],
    events: readonly EventRow[],
  ): Promise<void>;
  /** The journaled steps of an execution, by path. */
  steps(db: Kysely<Database>, id: string): Promise<JournalRow[]>;
  /** Events with a seq above `afterSeq`, in order, at most `limit`. */
  events(db: Kysely<Database>, id: string, afterSeq: number, limit: number): Promise<EventRow[]>;
  /** Highest event seq of an execution (0 when none). */
  lastEventSeq(db: Kysely<Database>, id: string): Promise<number>;
  /** Deletes the journal of `ids`; answers the steps and events it held. */
  remove(db: Kysely<Database>, ids: readonly string[]): Promise<{ steps: number; events: number }>;
}

/** The journal tables of a database of `dialect`. */
export function journalTables(dialect: Dialect): JournalTables {
  return dialect === 'sqlite' ? PACKED : SEPARATE;
}

/** A row of `execution_journal` (SQLite). */
export interface PackedJournalRow {
  /** The highest seq of the row's events; 0 without events. */
  last_seq: number;
  /** {@link packSteps}, or null. */
  steps: string | null;
  /** {@link packEvents}, or null. */
  events: string | null;
}

/**
 * JSON text on one line: what `JSON.stringify` wrote has no line break outside its strings (and
 * escapes those inside), so lines can frame it; anything else is written again on one line.
 */
function oneLine(json: string): string {
  return json.includes('\n') ? JSON.stringify(JSON.parse(json)) : json;
}

/** Steps as one text: the JSON array of their paths, then each step's JSON, a line each. */
export function packSteps(steps: readonly JournalRow[]): string | null {
  if (steps.length === 0) return null;
  let text = JSON.stringify(steps.map((step) => step.path));
  for (const step of steps) text += '\n' + oneLine(step.json);
  return text;
}

/** Events as one text: the JSON array of their `[seq, type]`, then each event's JSON, a line each. */
export function packEvents(events: readonly EventRow[]): string | null {
  if (events.length === 0) return null;
  let text = JSON.stringify(events.map((event) => [event.seq, event.type]));
  for (const event of events) text += '\n' + oneLine(event.json);
  return text;
}

/** The highest seq of `events` (0 when none). */
export function lastSeqOf(events: readonly EventRow[]): number {
  let last = 0;
  for (const event of events) if (event.seq > last) last = event.seq;
  return last;
}

/** The values of a packed row of `steps` and `events`. */
export function packedRow(
  steps: readonly JournalRow[],
  events: readonly EventRow[],
): PackedJournalRow {
  return { last_seq: lastSeqOf(events), steps: packSteps(steps), events: packEvents(events) };
}

function unpackSteps(text: string, into: Map<string, string>): void {
  const lines = text.split('\n');
  const paths = JSON.parse(lines[0]!) as string[];
  paths.forEach((path, i) => into.set(path, lines[i + 1]!));
}

function unpackEvents(text: string, afterSeq: number, into: Map<number, EventRow>): void {
  const lines = text.split('\n');
  const heads = JSON.parse(lines[0]!) as [number, string][];
  heads.forEach(([seq, type], i) => {
    // The first write of a seq wins, as an ignored duplicate insert would.
    if (seq > afterSeq && !into.has(seq)) into.set(seq, { seq, type, json: lines[i + 1]! });
  });
}

const byPath = (a: JournalRow, b: JournalRow): number =>
  a.path < b.path ? -1 : a.path > b.path ? 1 : 0;

/** SQLite: `execution_journal`, a packed row per write. */
const PACKED: JournalTables = {
  async append(db, id, steps, events) {
    if (steps.length === 0 && events.length === 0) return;
    await db
      .insertInto('execution_journal')
      .values({ execution_id: id, ...packedRow(steps, events) })
      .execute();
  },

  async steps(db, id) {
    const rows = await db
      .selectFrom('execution_journal')
      .select('steps')
      .where('execution_id', '=', id)
      .where('steps', 'is not', null)
      .orderBy('id')
      .execute();
    const latest = new Map<string, string>();
    for (const row of rows) unpackSteps(row.steps!, latest);
    return [...latest].map(([path, json]) => ({ path, json })).sort(byPath);
  },

  async events(db, id, afterSeq, limit) {
    // Each row has an event above `afterSeq`: `limit` rows hold the first `limit` events.
    const rows = await db
      .selectFrom('execution_journal')
      .select('events')
      .where('execution_id', '=', id)
      .where('last_seq', '>', afterSeq)
      .orderBy('last_seq')
      .orderBy('id')
      .limit(limit)
      .execute();
    const found = new Map<number, EventRow>();
    for (const row of rows) unpackEvents(row.events!, afterSeq, found);
    return [...found.values()].sort((a, b) => a.seq - b.seq).slice(0, limit);
  },

  async lastEventSeq(db, id) {
    const row = await db
      .selectFrom('execution_journal')
      .select((eb) => eb.fn.max('last_seq').as('seq'))
      .where('execution_id', '=', id)
      .executeTakeFirst();
    return Number(row?.seq ?? 0);
  },

  async remove(db, ids) {
    // The first line of a packed text is the JSON array of what it holds.
    const head = (column: string) =>
      sql<number>`coalesce(sum(json_array_length(substr(${sql.ref(column)}, 1, instr(${sql.ref(column)}, char(10)) - 1))), 0)`;
    const counted = await db
      .selectFrom('execution_journal')
      .select([head('steps').as('steps'), head('events').as('events')])
      .where('execution_id', 'in', ids)
      .executeTakeFirst();
    await db.deleteFrom('execution_journal').where('execution_id', 'in', ids).execute();
    return { steps: Number(counted?.steps ?? 0), events: Number(counted?.events ?? 0) };
  },
};

/** PostgreSQL: a row per step and a row per event. */
const SEPARATE: JournalTables = {
  async append(db, id, steps, events) {
    if (events.length > 0) {
      await db
        .insertInto('execution_events')
        .values(events.map((e) => ({ execution_id: id, seq: e.seq, type: e.type, data: e.json })))
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
    if (steps.length > 0) {
      await db
        .insertInto('execution_steps')
        .values(steps.map((step) => ({ execution_id: id, path: step.path, data: step.json })))
        .onConflict((oc) =>
          oc
            .columns(['execution_id', 'path'])
            .doUpdateSet((eb) => ({ data: eb.ref('excluded.data') })),
        )
        .execute();
    }
  },

  async steps(db, id) {
    const rows = await db
      .selectFrom('execution_steps')
      .select(['path', 'data'])
      .where('execution_id', '=', id)
      .orderBy('path')
      .execute();
    return rows.map((r) => ({ path: r.path, json: r.data }));
  },

  async events(db, id, afterSeq, limit) {
    const rows = await db
      .selectFrom('execution_events')
      .select(['seq', 'type', 'data'])
      .where('execution_id', '=', id)
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ seq: Number(r.seq), type: r.type, json: r.data }));
  },

  async lastEventSeq(db, id) {
    const row = await db
      .selectFrom('execution_events')
      .select((eb) => eb.fn.max('seq').as('seq'))
      .where('execution_id', '=', id)
      .executeTakeFirst();
    return Number(row?.seq ?? 0);
  },

  async remove(db, ids) {
    const steps = await db.deleteFrom('execution_steps').where('execution_id', 'in', ids).execute();
    const events = await db
      .deleteFrom('execution_events')
      .where('execution_id', 'in', ids)
      .execute();
    return {
      steps: Number(steps[0]?.numDeletedRows ?? 0),
      events: Number(events[0]?.numDeletedRows ?? 0),
    };
  },
};
