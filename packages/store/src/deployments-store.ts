import type { Kysely, Selectable } from 'kysely';
import type {
  DeployerSnapshot,
  DeploymentRecord,
  DeploymentStore,
  PluginReference,
} from '@weft/core';
import type { Database, Dialect } from './database.js';
import type { DeploymentRevisionsTable } from './triggers-tables.js';

type NewDeployment = Omit<DeploymentRecord, 'revision' | 'created_at'>;

/**
 * {@link DeploymentStore} on SQLite or PostgreSQL: every revision is kept in
 * `deployment_revisions`; `deployments` points at the active one; `deployment_plugins` indexes
 * the plugin versions active deployments reference (the registry's unpublish check).
 */
export class KyselyDeploymentStore implements DeploymentStore {
  readonly kind: string;

  constructor(
    private readonly db: Kysely<Database>,
    dialect: Dialect,
  ) {
    this.kind = dialect;
  }

  async put(record: NewDeployment): Promise<DeploymentRecord> {
    // Two concurrent deployments of one name race for the next revision number; the loser retries.
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.db.transaction().execute((trx) => insertRevision(trx, record));
      } catch (error) {
        if (attempt >= 4 || !isUniqueViolation(error)) throw error;
      }
    }
  }

  async get(name: string): Promise<DeploymentRecord | undefined> {
    const row = await this.db
      .selectFrom('deployments as d')
      .innerJoin('deployment_revisions as r', (j) =>
        j.onRef('r.name', '=', 'd.name').onRef('r.revision', '=', 'd.revision'),
      )
      .selectAll('r')
      .where('d.name', '=', name)
      .executeTakeFirst();
    return row && toRecord(row, await this.createdAt(name));
  }

  async list(): Promise<DeploymentRecord[]> {
    const rows = await this.db
      .selectFrom('deployments as d')
      .innerJoin('deployment_revisions as r', (j) =>
        j.onRef('r.name', '=', 'd.name').onRef('r.revision', '=', 'd.revision'),
      )
      .selectAll('r')
      .orderBy('r.name')
      .execute();
    const firsts = await this.db
      .selectFrom('deployment_revisions')
      .select(['name', 'deployed_at'])
      .where('revision', '=', 1)
      .execute();
    const created = new Map(firsts.map((f) => [f.name, f.deployed_at]));
    return rows.map((row) => toRecord(row, created.get(row.name) ?? row.deployed_at));
  }

  async history(name: string): Promise<DeploymentRecord[]> {
    const rows = await this.db
      .selectFrom('deployment_revisions')
      .selectAll()
      .where('name', '=', name)
      .orderBy('revision', 'desc')
      .execute();
    const created = rows.at(-1)?.deployed_at ?? '';
    return rows.map((row) => toRecord(row, created));
  }

  async remove(name: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('deployment_plugins').where('name', '=', name).execute();
      const result = await trx
        .deleteFrom('deployments')
        .where('name', '=', name)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    });
  }

  async usersOf(slug: string, version: string | null): Promise<string[]> {
    const rows = await this.db
      .selectFrom('deployment_plugins')
      .select('name')
      .distinct()
      .where('slug', '=', slug)
      .where('version', '=', version ?? '')
      .orderBy('name')
      .execute();
    return rows.map((r) => r.name);
  }

  async revisions(): Promise<Map<string, number>> {
    const rows = await this.db.selectFrom('deployments').select(['name', 'revision']).execute();
    return new Map(rows.map((r) => [r.name, Number(r.revision)]));
  }

  private async createdAt(name: string): Promise<string> {
    const first = await this.db
      .selectFrom('deployment_revisions')
      .select('deployed_at')
      .where('name', '=', name)
      .where('revision', '=', 1)
      .executeTakeFirst();
    return first?.deployed_at ?? '';
  }
}

async function insertRevision(
  trx: Kysely<Database>,
  record: NewDeployment,
): Promise<DeploymentRecord> {
  const last = await trx
    .selectFrom('deployment_revisions')
    .select('revision')
    .where('name', '=', record.name)
    .orderBy('revision', 'desc')
    .limit(1)
    .executeTakeFirst();
  const revision = (last ? Number(last.revision) : 0) + 1;
  const row = {
    name: record.name,
    revision,
    version: record.version,
    definition: JSON.stringify(record.definition),
    plugins: JSON.stringify(record.plugins),
    source: record.source,
    deployed_by: record.deployed_by,
    deployer: record.deployer ? JSON.stringify(record.deployer) : null,
    deployed_at: record.deployed_at,
  };
  await trx.insertInto('deployment_revisions').values(row).execute();
  await trx
    .insertInto('deployments')
    .values({ name: record.name, revision })
    .onConflict((oc) => oc.column('name').doUpdateSet({ revision }))
    .execute();
  await trx.deleteFrom('deployment_plugins').where('name', '=', record.name).execute();
  const plugins = uniquePlugins(record.plugins);
  if (plugins.length > 0) {
    await trx
      .insertInto('deployment_plugins')
      .values(plugins.map((p) => ({ name: record.name, slug: p.slug, version: p.version ?? '' })))
      .execute();
  }
  const created = revision === 1 ? record.deployed_at : await firstDeployedAt(trx, record.name);
  return toRecord(row, created);
}

async function firstDeployedAt(trx: Kysely<Database>, name: string): Promise<string> {
  const first = await trx
    .selectFrom('deployment_revisions')
    .select('deployed_at')
    .where('name', '=', name)
    .where('revision', '=', 1)
    .executeTakeFirst();
  return first?.deployed_at ?? '';
}

function uniquePlugins(plugins: PluginReference[]): PluginReference[] {
  const seen = new Map<string, PluginReference>();
  for (const p of plugins) seen.set(`${p.slug}@${p.version ?? ''}`, p);
  return [...seen.values()];
}

function toRecord(row: Selectable<DeploymentRevisionsTable>, createdAt: string): DeploymentRecord {
  return {
    name: row.name,
    version: row.version,
    revision: Number(row.revision),
    definition: JSON.parse(row.definition) as Record<string, unknown>,
    plugins: JSON.parse(row.plugins) as PluginReference[],
    source: row.source,
    deployed_by: row.deployed_by,
    deployer: row.deployer ? (JSON.parse(row.deployer) as DeployerSnapshot) : null,
    deployed_at: row.deployed_at,
    created_at: createdAt || row.deployed_at,
  };
}

function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e.code === '23505' || /UNIQUE constraint failed/.test(e.message ?? '');
}
