import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { EventRow, JournalRow } from '@weft/core';
import type { Database, Dialect } from './database.js';

/**
 * Where the journal's rows are kept: one row of `execution_journal` per write (SQLite since
 * migration `0030_journal_packed`, PostgreSQL since `0035_postgres_journal_packed`), holding the
 * steps and the events that write commits together. On SQLite a write dirties one page of the
 * table and one of its index instead of a page of each of two tables whose rows are split
 * across more pages (its WAL writes each dirtied page at every commit, so the packed row halves
 * the bytes and the system calls of a journaled step); on PostgreSQL it is one heap tuple
 * instead of three, and two index entries instead of three.
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
  return dialect === 'sqlite' ? SQLITE : POSTGRES;
}

/** A row of `execution_journal`. */
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
function packSteps(steps: readonly JournalRow[]): string | null {
  if (steps.length === 0) return null;
  let text = JSON.stringify(steps.map((step) => step.path));
  for (const step of steps) text += '\n' + oneLine(step.json);
  return text;
}

/** Events as one text: the JSON array of their `[seq, type]`, then each event's JSON, a line each. */
function packEvents(events: readonly EventRow[]): string | null {
  if (events.length === 0) return null;
  let text = JSON.stringify(events.map((event) => [event.seq, event.type]));
  for (const event of events) text += '\n' + oneLine(event.json);
  return text;
}

/** The highest seq of `events` (0 when none). */
function lastSeqOf(events: readonly EventRow[]): number {
  let last = 0;
  for (const event of events) if (event.seq > last) last = event.seq;
  return last;
}

/**
 * The values of a packed row of `steps` and `events`, in the order of the columns `last_seq`,
 * `steps`, `events` (the writers' statements).
 */
export function packedValues(
  steps: readonly JournalRow[],
  events: readonly EventRow[],
): [number, string | null, string | null] {
  return [lastSeqOf(events), packSteps(steps), packEvents(events)];
}

/** The values of a packed row of `steps` and `events`. */
function packedRow(steps: readonly JournalRow[], events: readonly EventRow[]): PackedJournalRow {
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

/** The reads of `execution_journal`, as queries (the plan tests compile them too). */
export const journalReads = {
  /** The rows holding steps of `id`, in the order they were written. */
  steps: (db: Kysely<Database>, id: string) =>
    db
      .selectFrom('execution_journal')
      .select('steps')
      .where('execution_id', '=', id)
      .where('steps', 'is not', null)
      .orderBy('id'),
  /** The first `limit` rows holding an event of `id` above `afterSeq`. */
  events: (db: Kysely<Database>, id: string, afterSeq: number, limit: number) =>
    db
      .selectFrom('execution_journal')
      .select('events')
      .where('execution_id', '=', id)
      .where('last_seq', '>', afterSeq)
      .orderBy('last_seq')
      .orderBy('id')
      .limit(limit),
  /** The highest event seq of `id` (null without events). */
  lastEventSeq: (db: Kysely<Database>, id: string) =>
    db
      .selectFrom('execution_journal')
      .select((eb) => eb.fn.max('last_seq').as('seq'))
      .where('execution_id', '=', id),
};

/**
 * `execution_journal`, a packed row per write; `held` counts what the packed texts of a column
 * hold (the length of the JSON array on their first line), summed over the rows read.
 */
const packedTables = (held: (column: string) => RawBuilder<number>): JournalTables => ({
  async append(db, id, steps, events) {
    if (steps.length === 0 && events.length === 0) return;
    await db
      .insertInto('execution_journal')
      .values({ execution_id: id, ...packedRow(steps, events) })
      .execute();
  },

  async steps(db, id) {
    const rows = await journalReads.steps(db, id).execute();
    const latest = new Map<string, string>();
    for (const row of rows) unpackSteps(row.steps!, latest);
    return [...latest].map(([path, json]) => ({ path, json })).sort(byPath);
  },

  async events(db, id, afterSeq, limit) {
    // Each row has an event above `afterSeq`: `limit` rows hold the first `limit` events.
    const rows = await journalReads.events(db, id, afterSeq, limit).execute();
    const found = new Map<number, EventRow>();
    for (const row of rows) unpackEvents(row.events!, afterSeq, found);
    return [...found.values()].sort((a, b) => a.seq - b.seq).slice(0, limit);
  },

  async lastEventSeq(db, id) {
    const row = await journalReads.lastEventSeq(db, id).executeTakeFirst();
    return Number(row?.seq ?? 0);
  },

  async remove(db, ids) {
    const counted = await db
      .selectFrom('execution_journal')
      .select([held('steps').as('steps'), held('events').as('events')])
      .where('execution_id', 'in', ids)
      .executeTakeFirst();
    await db.deleteFrom('execution_journal').where('execution_id', 'in', ids).execute();
    return { steps: Number(counted?.steps ?? 0), events: Number(counted?.events ?? 0) };
  },
});

// The first line of a packed text is the JSON array of what it holds.
const SQLITE = packedTables(
  (column) =>
    sql<number>`coalesce(sum(json_array_length(substr(${sql.ref(column)}, 1, instr(${sql.ref(column)}, char(10)) - 1))), 0)`,
);
const POSTGRES = packedTables(
  (column) =>
    sql<number>`coalesce(sum(json_array_length(split_part(${sql.ref(column)}, chr(10), 1)::json)), 0)`,
);
