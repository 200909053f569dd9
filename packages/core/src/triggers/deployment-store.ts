import type { WorkflowLock } from './deployment-lock.js';
import { grantList, type CredentialKind, type Principal } from '../identity/principal.js';

/** A plugin version a deployed workflow references. */
export interface PluginReference {
  slug: string;
  /**
   * The pinned version (`connector:` references); null for a bare `plugin: <slug>`, which runs
   * whatever version is the registry's latest at run time.
   */
  version: string | null;
}

/**
 * Who deployed a workflow, as checked at deployment (docs/authorization.md#deployments-and-triggers):
 * the runs its triggers start act as this principal. `roles` and `permissions` are the grants in
 * force then (permissions already expanded by the access file), not re-read later.
 */
export interface DeployerSnapshot {
  kind: CredentialKind;
  subject: string;
  owner: string;
  /** The key's public id (`oidc:<sub>` for tokens, `local:<subject>` for the workflows directory). */
  key_id: string;
  name: string;
  roles: string[];
  permissions: string[];
}

/** The snapshot of a principal deploying now. */
export function deployerSnapshot(principal: Principal): DeployerSnapshot {
  return {
    kind: principal.kind,
    subject: principal.subject,
    owner: principal.owner,
    key_id: principal.keyId,
    name: principal.name,
    roles: [...principal.roles],
    permissions: [...principal.permissions],
  };
}

/**
 * The principal the runs of a deployment's triggers act as: the deployer as recorded (never an
 * admin: triggers do not manage keys).
 */
export function deployerPrincipal(snapshot: DeployerSnapshot): Principal {
  return {
    kind: snapshot.kind,
    subject: snapshot.subject,
    owner: snapshot.owner,
    keyId: snapshot.key_id,
    name: snapshot.name,
    admin: false,
    roles: grantList(snapshot.roles),
    permissions: grantList(snapshot.permissions),
  };
}

/**
 * The key of a deployment among every owner's: `owner/name`. Owner names never hold a `/`
 * (identity-provider owners of before workspaces may, hence the split at the last one: workflow
 * names hold none). Replicas compare revisions and schedules are stored under it.
 */
export function deploymentKey(owner: string, name: string): string {
  return `${owner}/${name}`;
}

/** The owner and name of a {@link deploymentKey}. */
export function parseDeploymentKey(key: string): { owner: string; name: string } {
  const slash = key.lastIndexOf('/');
  return { owner: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** One deployment of a workflow, as stored. */
export interface DeploymentRecord {
  /**
   * The workspace it belongs to: the deploying key's owner, or the workflows directory's
   * (`WEFT_WORKFLOWS_OWNER`). Names are unique per owner, not per server.
   */
  owner: string;
  /** Workflow name (unique among the deployed workflows of its owner). */
  name: string;
  /** The workflow's own `version` (default 1.0.0). */
  version: string;
  /** 1 for the first deployment of this name by its owner, +1 on every redeployment. */
  revision: number;
  /** The workflow definition as deployed (the object inside `workflows`). */
  definition: Record<string, unknown>;
  /** Plugins and versions the definition references. */
  plugins: PluginReference[];
  /** Where it came from: `api` (PUT /workflows/{name}) or `file:<path>` (--workflows DIR). */
  source: string;
  /**
   * The text it was deployed from, as sent (YAML or JSON; a file's whole text); absent for
   * revisions stored before it was kept and for definitions deployed as parsed objects.
   */
  source_text?: string;
  /**
   * The lock it was deployed with (`weft.lock`'s entry of the workflow, checked against this
   * server's registry); absent when none was sent.
   */
  lock?: WorkflowLock;
  /** Owner of the key that deployed it, or null (file deployments). */
  deployed_by: string | null;
  /**
   * Who deployed it, with the grants checked then; null for revisions stored before it was
   * recorded (their triggered runs act with no grants) and for directory deployments without
   * declared grants.
   */
  deployer: DeployerSnapshot | null;
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
   * Stores a new revision of `record.name` of `record.owner` (revision = previous + 1 of that
   * owner's name, created_at kept) and makes it the active one; returns the stored record.
   */
  put(record: Omit<DeploymentRecord, 'revision' | 'created_at'>): Promise<DeploymentRecord>;
  /** The active deployment of a name of `owner`. */
  get(owner: string, name: string): Promise<DeploymentRecord | undefined>;
  /** The active deployments of `owner`, by name; without it, every owner's (by owner, name). */
  list(owner?: string): Promise<DeploymentRecord[]>;
  /** Every revision of a name of `owner`, newest first (kept after removal too). */
  history(owner: string, name: string): Promise<DeploymentRecord[]>;
  /** Undeploys a name of `owner`; false when it was not deployed. History is kept. */
  remove(owner: string, name: string): Promise<boolean>;
  /**
   * Names of active deployments (of every owner, each name once) referencing `slug@version`;
   * with `version` null, those referencing `slug` bare (the registry's latest at run time).
   */
  usersOf(slug: string, version: string | null): Promise<string[]>;
  /**
   * The active revision of every deployment, by {@link deploymentKey}: one cheap read that
   * replicas poll to notice deployments and undeployments made elsewhere.
   */
  revisions(): Promise<Map<string, number>>;
}
