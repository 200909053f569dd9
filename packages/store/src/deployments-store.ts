import type { Kysely, Selectable } from 'kysely';
import {
  deploymentKey,
  type DeployerSnapshot,
  type DeploymentRecord,
  type DeploymentStore,
  type PluginReference,
  type WorkflowLock,
} from '@weft/core';
import type { Database, Dialect } from './database.js';
import type { DeploymentRevisionsTable } from './triggers-tables.js';

type NewDeployment = Omit<DeploymentRecord, 'revision' | 'created_at'>;

/**
 * {@link DeploymentStore} on SQLite or PostgreSQL: every revision is kept in
 * `deployment_revisions`; `deployments` points at the active one; `deployment_plugins` indexes
 * the plugin versions active deployments reference (the registry's unpublish check). Every
 * table is keyed by (owner, name): names are per workspace.
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

  async get(owner: string, name: string): Promise<DeploymentRecord | undefined> {
    const row = await this.db
      .selectFrom('deployments as d')
      .innerJoin('deployment_revisions as r', (j) =>
        j
          .onRef('r.owner', '=', 'd.owner')
          .onRef('r.name', '=', 'd.name')
          .onRef('r.revision', '=', 'd.revision'),
      )
      .selectAll('r')
      .where('d.owner', '=', owner)
      .where('d.name', '=', name)
      .executeTakeFirst();
    return row && toRecord(row, await firstDeployedAt(this.db, owner, name));
  }

  async list(owner?: string): Promise<DeploymentRecord[]> {
    let query = this.db
      .selectFrom('deployments as d')
      .innerJoin('deployment_revisions as r', (j) =>
        j
          .onRef('r.owner', '=', 'd.owner')
          .onRef('r.name', '=', 'd.name')
          .onRef('r.revision', '=', 'd.revision'),
      )
      .selectAll('r')
      .orderBy('r.owner')
      .orderBy('r.name');
    if (owner !== undefined) query = query.where('d.owner', '=', owner);
    const rows = await query.execute();
    let firstsQuery = this.db
      .selectFrom('deployment_revisions')
      .select(['owner', 'name', 'deployed_at'])
      .where('revision', '=', 1);
    if (owner !== undefined) firstsQuery = firstsQuery.where('owner', '=', owner);
    const firsts = await firstsQuery.execute();
    const created = new Map(firsts.map((f) => [deploymentKey(f.owner, f.name), f.deployed_at]));
    return rows.map((row) =>
      toRecord(row, created.get(deploymentKey(row.owner, row.name)) ?? row.deployed_at),
    );
  }

  async history(owner: string, name: string): Promise<DeploymentRecord[]> {
    const rows = await this.db
      .selectFrom('deployment_revisions')
      .selectAll()
      .where('owner', '=', owner)
      .where('name', '=', name)
      .orderBy('revision', 'desc')
      .execute();
    const created = rows.at(-1)?.deployed_at ?? '';
    return rows.map((row) => toRecord(row, created));
  }

  async remove(owner: string, name: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('deployment_plugins')
        .where('owner', '=', owner)
        .where('name', '=', name)
        .execute();
      const result = await trx
        .deleteFrom('deployments')
        .where('owner', '=', owner)
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
    const rows = await this.db
      .selectFrom('deployments')
      .select(['owner', 'name', 'revision'])
      .execute();
    return new Map(rows.map((r) => [deploymentKey(r.owner, r.name), Number(r.revision)]));
  }
}

async function insertRevision(
  trx: Kysely<Database>,
  record: NewDeployment,
): Promise<DeploymentRecord> {
  const last = await trx
    .selectFrom('deployment_revisions')
    .select('revision')
    .where('owner', '=', record.owner)
    .where('name', '=', record.name)
    .orderBy('revision', 'desc')
    .limit(1)
    .executeTakeFirst();
  const revision = (last ? Number(last.revision) : 0) + 1;
  const row = {
    owner: record.owner,
    name: record.name,
    revision,
    version: record.version,
    definition: JSON.stringify(record.definition),
    plugins: JSON.stringify(record.plugins),
    source: record.source,
    deployed_by: record.deployed_by,
    deployer: record.deployer ? JSON.stringify(record.deployer) : null,
    deployed_at: record.deployed_at,
    source_text: record.source_text ?? null,
    lock: record.lock ? JSON.stringify(record.lock) : null,
  };
  await trx.insertInto('deployment_revisions').values(row).execute();
  await trx
    .insertInto('deployments')
    .values({ owner: record.owner, name: record.name, revision })
    .onConflict((oc) => oc.columns(['owner', 'name']).doUpdateSet({ revision }))
    .execute();
  await trx
    .deleteFrom('deployment_plugins')
    .where('owner', '=', record.owner)
    .where('name', '=', record.name)
    .execute();
  const plugins = uniquePlugins(record.plugins);
  if (plugins.length > 0) {
    await trx
      .insertInto('deployment_plugins')
      .values(
        plugins.map((p) => ({
          owner: record.owner,
          name: record.name,
          slug: p.slug,
          version: p.version ?? '',
        })),
      )
      .execute();
  }
  const created =
    revision === 1 ? record.deployed_at : await firstDeployedAt(trx, record.owner, record.name);
  return toRecord(row, created);
}

async function firstDeployedAt(db: Kysely<Database>, owner: string, name: string): Promise<string> {
  const first = await db
    .selectFrom('deployment_revisions')
    .select('deployed_at')
    .where('owner', '=', owner)
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
    owner: row.owner,
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
    ...(row.source_text !== null ? { source_text: row.source_text } : {}),
    ...(row.lock !== null && row.lock !== undefined
      ? { lock: JSON.parse(row.lock) as WorkflowLock }
      : {}),
  };
}

function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e.code === '23505' || /UNIQUE constraint failed/.test(e.message ?? '');
}
