import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Database } from './database.js';
import { migrate } from './migrations.js';
import { testSchemaName } from './test-stores.js';

/** A node of PostgreSQL's `EXPLAIN (FORMAT JSON)` plan, as the plan tests read it. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  /** `InitPlan` for a subquery run once per execution. */
  'Parent Relationship'?: string;
  Plans?: PlanNode[];
  /** The node's expressions (`Filter`, `Output`, `Index Cond`...): plans are verbose. */
  [field: string]: unknown;
}

/** `node` and every node under it. */
export const planNodes = (node: PlanNode): PlanNode[] => [
  node,
  ...(node.Plans ?? []).flatMap(planNodes),
];

/** The tables `plan` reads whole (its `Seq Scan` nodes). */
export const seqScans = (plan: PlanNode): string[] =>
  planNodes(plan)
    .filter((node) => node['Node Type'] === 'Seq Scan')
    .map((node) => node['Relation Name'] ?? '?');

/** Both ways PostgreSQL may plan a named statement: with each call's values, and generically. */
export const PLAN_MODES = ['force_custom_plan', 'force_generic_plan'];

/**
 * A migrated schema of its own on one connection, for tests that read query plans: seed it in
 * `beforeAll` after {@link create}, then `VACUUM ANALYZE`; {@link drop} it in `afterAll`.
 */
export class PlanTestDatabase {
  readonly schema = testSchemaName();
  readonly pool: pg.Pool;
  readonly db: Kysely<Database>;

  constructor(url: string) {
    // One connection, whose search_path is the schema: the plans are of its tables alone.
    this.pool = new pg.Pool({
      connectionString: url,
      max: 1,
      options: `-c search_path=${this.schema}`,
    });
    this.db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: this.pool }) });
  }

  /** Creates and migrates the schema. */
  async create(): Promise<void> {
    await sql`CREATE SCHEMA ${sql.id(this.schema)}`.execute(this.db);
    await migrate(this.db, 'postgres', this.schema);
  }

  /** Drops the schema and closes the connection. */
  async drop(): Promise<void> {
    await this.pool.query(`DROP SCHEMA IF EXISTS ${this.schema} CASCADE`);
    await this.db.destroy();
  }

  /**
   * The plans of `text` (`$n` parameters) with `params` as a named statement, one per mode of
   * `modes` (`plan_cache_mode`), verbose (each node's output expressions too).
   */
  async plans(text: string, params: readonly unknown[], modes = PLAN_MODES): Promise<PlanNode[]> {
    await this.pool.query('DEALLOCATE ALL');
    await this.pool.query(`PREPARE plan AS ${text}`);
    const values = params.map(literal).join(', ');
    const found: PlanNode[] = [];
    for (const mode of modes) {
      await this.pool.query(`SET plan_cache_mode = ${mode}`);
      const { rows } = await this.pool.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
        `EXPLAIN (FORMAT JSON, VERBOSE) EXECUTE plan${values === '' ? '' : `(${values})`}`,
      );
      found.push(rows[0]!['QUERY PLAN'][0]!.Plan);
    }
    await this.pool.query('DEALLOCATE plan');
    return found;
  }
}

/** `value` as an SQL literal: a number as it is, anything else as a quoted string. */
function literal(value: unknown): string {
  return typeof value === 'number' ? String(value) : `'${String(value).replaceAll("'", "''")}'`;
}
