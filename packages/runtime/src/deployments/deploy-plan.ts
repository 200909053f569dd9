import {
  ValidationError,
  type DeployImpact,
  type DeployerSnapshot,
  type DeploymentRecord,
  type Principal,
} from '@weft/core';
import type { Activation } from './activations.js';
import type { UnavailableAgent } from './agent-refs.js';
import type { Guard } from './change-audit.js';
import type { ValidDefinition } from './parse-definition.js';
import { pluginReferences } from './plugin-refs.js';

/**
 * Who deploys or changes a deployment: the owner (workspace) it acts in, whether it is an admin
 * key, and the caller's principal (checked against the workflow's authorization and recorded as
 * its deployer; without one, a guarded workflow is refused). The owner is the key's own, except
 * for an admin key naming another with `?owner=` (reads and undeploys only).
 */
export interface Deployer {
  owner: string;
  admin?: boolean;
  principal?: Principal;
}

/** How a deployment treats its warnings. */
export interface DeployOptions {
  /** Refuse (`VALIDATION`, nothing deployed) when a definition has warnings. */
  strict?: boolean;
  /** Check everything and deploy nothing. */
  dryRun?: boolean;
  /**
   * Deploy even when the impact check finds breaking changes for executions waiting for
   * approval (otherwise `CONFLICT`); audited.
   */
  force?: boolean;
  /** The text the definitions were sent as (kept with each revision, shown as deployed). */
  text?: string;
}

/** Answer of a deployment. */
export interface Deployed {
  /** The stored record; for a dry run, the record it would store. */
  record: DeploymentRecord;
  previousVersion: string | null;
  webhooks: string[];
  /**
   * Validator warnings, then each plugin this server cannot run, then each agent step, then the
   * triggers' own.
   */
  warnings: string[];
  /** True for a dry run (nothing stored or served). */
  dryRun: boolean;
  /** What it does (a dry run: would do) to the work in progress. */
  impact?: DeployImpact;
}

/** A definition checked and compiled, ready to store and serve. */
export interface Prepared {
  valid: ValidDefinition;
  previous: DeploymentRecord | undefined;
  activation: Activation;
  warnings: string[];
  /** What the deployer was checked against: the current revision's guard and the new block. */
  required: Guard;
}

/** What a definition's check found (each becomes a warning). */
export interface DeployFindings {
  /** The validator's warnings. */
  validator: readonly string[];
  /** The plugins this server cannot run. */
  plugins: readonly string[];
  /** The agent steps whose agent this server cannot run. */
  agents: readonly UnavailableAgent[];
  /** What compiling the triggers found (a short webhook secret), each naming its field. */
  triggers?: readonly string[];
}

/**
 * The warnings of a deployment: the validator's, then one per plugin this server cannot run,
 * then one per agent step whose agent it cannot run (none resolves, or its secrets policy
 * refuses the one that does), then the triggers' own (a short webhook secret). With `strict`, any warning refuses the deployment (`VALIDATION`,
 * nothing deployed).
 */
export function deployWarnings(name: string, found: DeployFindings, strict: boolean): string[] {
  const warnings = [
    ...found.validator,
    ...found.plugins.map(
      (plugin) =>
        `plugin "${plugin}" is neither published nor registered on this server: runs of "${name}" fail with VALIDATION until it is (publish it, or register a connector instance with the router)`,
    ),
    ...found.agents.map((agent) => agentWarning(name, agent)),
    ...(found.triggers ?? []),
  ];
  if (strict && warnings.length > 0) {
    throw new ValidationError(
      `not deployed (strict): "${name}" has ${warnings.length} warning${warnings.length === 1 ? '' : 's'}: ${warnings.join('; ')}`,
      { field: 'workflow', constraint: 'strict', workflow: name, warnings },
    );
  }
  return warnings;
}

/** The warning of an agent step of `name` (or of a workflow it calls) that cannot run here. */
function agentWarning(name: string, { workflow, step, agent, reason }: UnavailableAgent): string {
  const where = workflow === name ? '' : ` of workflow "${workflow}" (which "${name}" calls)`;
  return `agent step "${step}"${where} references ${agent}, which this server cannot run: runs of "${name}" fail with VALIDATION until it can (${reason})`;
}

/**
 * What committing a prepared definition to `owner`'s workspace would answer at `now`, without
 * storing or serving it.
 */
export function dryRunAnswer(
  { valid, previous, activation, warnings }: Prepared,
  source: string,
  owner: string,
  deployer: Deployer | null,
  snapshot: DeployerSnapshot | null,
  now: number,
): Deployed {
  const workflow = valid.workflow;
  const at = new Date(now).toISOString();
  return {
    record: {
      owner,
      name: workflow.name,
      version: workflow.version,
      revision: (previous?.revision ?? 0) + 1,
      definition: valid.raw,
      plugins: pluginReferences(workflow),
      source,
      deployed_by: deployer?.owner ?? null,
      deployer: snapshot,
      deployed_at: at,
      created_at: previous?.created_at ?? at,
    },
    previousVersion: previous?.version ?? null,
    webhooks: activation.hooks.map((h) => h.key.replace(' ', ' /hooks')),
    warnings,
    dryRun: true,
  };
}
