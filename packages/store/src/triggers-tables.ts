/** `webhook_deliveries`: delivery ids seen within their replay window. */
export interface WebhookDeliveriesTable {
  scope: string;
  delivery_id: string;
  /** Epoch ms. */
  expires_at: number;
  execution_id: string | null;
}

/** `rate_buckets`: token buckets shared by replicas (PostgreSQL). */
export interface RateBucketsTable {
  key: string;
  tokens: number;
  /** Epoch ms of the last update. */
  updated_ms: number;
  /** 1 when the last take got a token, else 0 (read back by the atomic update). */
  last_allowed: number;
}

/** `schedule_state`: the next fire of each schedule trigger, as a UTC instant. */
export interface ScheduleStateTable {
  workflow: string;
  trigger_id: string;
  /** Epoch ms (UTC). */
  next_fire_at: number;
}

/** `schedule_fires`: one row per schedule fire ever claimed (pruned after a day). */
export interface ScheduleFiresTable {
  workflow: string;
  trigger_id: string;
  /** Epoch ms (UTC) of the fire time, not of the claim. */
  fire_at: number;
  claimed_at: number;
}

/** `deployments`: the active deployment of each workflow name of each owner. */
export interface DeploymentsTable {
  /** The workspace the deployment belongs to (migration 0018; names are per owner). */
  owner: string;
  name: string;
  revision: number;
}

/** `deployment_revisions`: every deployment ever made. */
export interface DeploymentRevisionsTable {
  owner: string;
  name: string;
  revision: number;
  version: string;
  /** JSON of the definition. */
  definition: string;
  /** JSON array of {slug, version}. */
  plugins: string;
  source: string;
  deployed_by: string | null;
  /** JSON of the `DeployerSnapshot` (migration 0012); null when none was recorded. */
  deployer: string | null;
  deployed_at: string;
  /** The text it was deployed from (migration 0021); null when not kept. */
  source_text: string | null;
  /** JSON of the `WorkflowLock` it was deployed with (migration 0025); null when none. */
  lock: string | null;
}

/** `deployment_plugins`: plugin versions referenced by active deployments. */
export interface DeploymentPluginsTable {
  owner: string;
  name: string;
  slug: string;
  /** '' for an unpinned reference. */
  version: string;
}

/** The tables of triggers and deployments, as Kysely sees them. */
export interface TriggerTables {
  webhook_deliveries: WebhookDeliveriesTable;
  rate_buckets: RateBucketsTable;
  schedule_state: ScheduleStateTable;
  schedule_fires: ScheduleFiresTable;
  deployments: DeploymentsTable;
  deployment_revisions: DeploymentRevisionsTable;
  deployment_plugins: DeploymentPluginsTable;
}
