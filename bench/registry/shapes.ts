/**
 * The cost of each search shape in isolation: the store's `search` called directly (no HTTP,
 * no answer cache) on the seeded data, one call at a time. On SQLite the call runs on this
 * thread, so its CPU time is the query's cost whatever else the machine runs; on PostgreSQL
 * the time is the round trip (the work is in the server's process). Shapes are measured in a
 * new seeded random order each round: min / median / max of the rounds.
 */
import { exactKey, searchWords, type RegistryStore, type SearchQuery } from '@weft/core';
import { shuffler } from '../harness.js';

/** One measured shape. */
export interface ShapeResult {
  store: string;
  shape: string;
  total: number;
  /** Per query, ms: CPU of this process (SQLite) and wall time. */
  cpuMs: [number, number, number];
  wallMs: [number, number, number];
}

function query(q: string, more: Partial<SearchQuery> = {}): SearchQuery {
  const exact = exactKey(q);
  return {
    words: [...new Set(searchWords(exact))],
    exact,
    tag: undefined,
    limit: 20,
    offset: 0,
    ...more,
  };
}

/** Every shape the registry's queries take, on the words of `seed.ts`. */
const SHAPES: Record<string, SearchQuery> = {
  'one letter (s)': query('s'),
  'two letters (sl)': query('sl'),
  'two letters in every description (re)': query('re'),
  'word (slack)': query('slack'),
  'word in 1 of 15 names (sync)': query('sync'),
  'two words (slack sync)': query('slack sync'),
  'exact slug': query('slack-sync-0'),
  'word and tag (drive, files)': query('drive', { tag: 'files' }),
  'word and tag, none (telegram, analytics)': query('telegram', { tag: 'analytics' }),
  'tag only (chat)': query('', { tag: 'chat' }),
  browse: query(''),
  'browse, page 250': query('', { offset: 5000 }),
  'past the end (slack, offset 9000)': query('slack', { offset: 9000 }),
  'no match (zz)': query('zz'),
};

const median = (sorted: readonly number[]) => sorted[Math.floor(sorted.length / 2)]!;

/** Measures every shape on `store`: `calls` calls per shape and round. */
export async function measureShapes(
  name: string,
  store: RegistryStore,
  rounds: number,
  calls: number,
): Promise<ShapeResult[]> {
  const entries = Object.entries(SHAPES);
  const cpu = entries.map((): number[] => []);
  const wall = entries.map((): number[] => []);
  const totals = await Promise.all(entries.map(async ([, q]) => (await store.search(q)).total));
  const shuffle = shuffler(33);
  for (let round = 0; round < rounds; round++) {
    for (const k of shuffle(entries.map((_, i) => i))) {
      const q = entries[k]![1];
      await store.search(q);
      const startCpu = process.cpuUsage();
      const start = process.hrtime.bigint();
      for (let i = 0; i < calls; i++) await store.search(q);
      const used = process.cpuUsage(startCpu);
      wall[k]!.push(Number(process.hrtime.bigint() - start) / 1e6 / calls);
      cpu[k]!.push((used.user + used.system) / 1000 / calls);
    }
  }
  const range = (values: number[]): [number, number, number] => {
    const sorted = [...values].sort((a, b) => a - b);
    return [sorted[0]!, median(sorted), sorted.at(-1)!];
  };
  return entries.map(([shape], k) => ({
    store: name,
    shape,
    total: totals[k]!,
    cpuMs: range(cpu[k]!),
    wallMs: range(wall[k]!),
  }));
}

/** Prints the shapes' table: median [min–max] ms per query. */
export function printShapes(title: string, rows: readonly ShapeResult[]): void {
  const fmt = ([min, mid, max]: [number, number, number]) =>
    `${mid.toFixed(3)} [${min.toFixed(2)}–${max.toFixed(2)}]`;
  const cells = rows.map((r) => [r.store, r.shape, String(r.total), fmt(r.cpuMs), fmt(r.wallMs)]);
  const header = ['store', 'shape', 'total', 'CPU ms / query', 'wall ms / query'];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]) =>
    c.map((x, i) => (i < 2 ? x.padEnd(widths[i]!) : x.padStart(widths[i]!))).join('  ');
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const c of cells) console.log(line(c));
}
