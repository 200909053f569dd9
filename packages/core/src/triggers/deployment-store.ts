/** A plugin version a deployed workflow references. */
export interface PluginReference {
  slug: string;
  /**
   * The pinned version (`connector:` references); null for a bare `plugin: <slug>`, which runs
   * whatever version is the registry's latest at run time.
   */
  version: string | null;
}

/** One deployment of a workflow, as stored. */
export interface DeploymentRecord {
  /** Workflow name (unique among deployed workflows). */
  name: string;
  /** The workflow's own `version` (default 1.0.0). */
  version: string;
  /** 1 for the first deployment of this name, +1 on every redeployment. */
  revision: number;
  /** The workflow definition as deployed (the object inside `workflows`). */
  definition: Record<string, unknown>;
  /** Plugins and versions the definition references. */
  plugins: PluginReference[];
  /** Where it came from: `api` (PUT /workflows/{name}) or `file:<path>` (--workflows DIR). */
  source: string;
  /** Owner of the key that deployed it, or null (file deployments). */
  deployed_by: string | null;
  /** ISO 8601 UTC of this revision. */
  deployed_at: string;
  /** ISO 8601 UTC of the first deployment of this name. */
  created_at: string;
}

/**
 * Storage port of deployed workflows: the active definition of each name, every earlier
 * revision, and the plugin versions each active one references (read by the registry's unpublish
 * "in use" check).
 */
export interface DeploymentStore {
  /** `memory`, `sqlite` or `postgres`, for logs. */
  readonly kind: string;
  /**
   * Stores a new revision of `record.name` (revision = previous + 1, created_at kept) and makes it
   * the active one; returns the stored record.
   */
  put(record: Omit<DeploymentRecord, 'revision' | 'created_at'>): Promise<DeploymentRecord>;
  /** The active deployment of a name. */
  get(name: string): Promise<DeploymentRecord | undefined>;
  /** Every active deployment, by name. */
  list(): Promise<DeploymentRecord[]>;
  /** Every revision of a name, newest first (kept after removal too). */
  history(name: string): Promise<DeploymentRecord[]>;
  /** Undeploys a name; false when it was not deployed. History is kept. */
  remove(name: string): Promise<boolean>;
  /**
   * Names of active deployments referencing `slug@version`; with `version` null, those
   * referencing `slug` bare (no version: the registry's latest at run time).
   */
  usersOf(slug: string, version: string | null): Promise<string[]>;
  /**
   * The active revision of every deployed name: one cheap read that replicas poll to notice
   * deployments and undeployments made elsewhere.
   */
  revisions(): Promise<Map<string, number>>;
}
