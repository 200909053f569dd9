import { ValidationError, type DeploymentRecord, type Principal } from '@weft/core';
import type { WorkflowDefinition } from '@weft/engine';
import type { Activations } from './activations.js';
import { unavailableAgents } from './agent-refs.js';
import { mergeGuards, type Guard } from './change-audit.js';
import { authorizeDeploy } from './deploy-check.js';
import { deployWarnings, type Deployer, type Prepared } from './deploy-plan.js';
import type { DeploymentServiceOptions } from './deployment-options.js';
import { checkGuard } from './guard.js';
import { libraryOf } from './library.js';
import { validateDefinition, type ValidDefinition } from './parse-definition.js';

/**
 * What checking a deployment reads of the deployment service, for one deployer: its options,
 * the served deployments, the workspace the deployment goes to and the principal it acts as.
 */
export interface DeployScope {
  options: DeploymentServiceOptions;
  activations: Activations;
  /** The caller, or null for the workflows directory. */
  deployer: Deployer | null;
  /** The workspace it deploys to: the caller's owner, or `defaultOwner`. */
  owner: string;
  /** The principal it acts as: the caller's, or the workflows directory's (read when asked). */
  actingAs(): Principal | undefined;
  /** The active definition of the deployed workflow `name` of `owner`. */
  workflowOf(name: string, owner: string): WorkflowDefinition | undefined;
  /** The owner of a deployment, by its key. */
  ownerOf(key: string): string;
}

/** A definition validated, with the active revision it replaces and that revision's guard. */
export interface Validated {
  valid: ValidDefinition;
  previous: DeploymentRecord | undefined;
  guard: Guard | undefined;
}

/**
 * Validates one definition (`known`: the names a subworkflow step may call) and checks that the
 * deployer may (re)deploy its name in the scope's workspace; changes nothing.
 */
export async function validateDeploy(
  scope: DeployScope,
  raw: unknown,
  known: readonly string[],
  expectedName: string | undefined,
): Promise<Validated> {
  const { options, owner, deployer } = scope;
  const valid = validateDefinition(raw, known, options.detectors);
  const name = valid.workflow.name;
  if (expectedName !== undefined && name !== expectedName) {
    throw new ValidationError(
      `the definition is named "${name}", not "${expectedName}" as in the path`,
      { field: 'name', constraint: 'matches_path' },
    );
  }
  // Only the owner's own deployment of the name is replaced: another owner's is another one.
  const previous = await options.store.get(owner, name);
  if (!previous || !deployer) return { valid, previous, guard: undefined };
  // A guard protects itself: replacing the revision (even by one without the block) needs it.
  const guard = await checkGuard(previous, deployer, 'workflow.deploy', options.audit);
  return { valid, previous, guard };
}

/**
 * Checks the deployer's authorization (audited), collects the warnings (refusing them when
 * `strict`) and compiles the triggers of a validated definition; changes nothing.
 * `deployedWith` are the definitions deployed together, which it may call.
 */
export async function prepareDeploy(
  scope: DeployScope,
  { valid, previous, guard }: Validated,
  deployedWith: readonly { valid: ValidDefinition }[],
  source: string,
  strict: boolean,
): Promise<Prepared> {
  const { options, owner, deployer } = scope;
  const workflow = valid.workflow;
  const library = libraryOf(
    workflow,
    (name) =>
      deployedWith.find((d) => d.valid.workflow.name === name)?.valid.workflow ??
      scope.workflowOf(name, owner),
  );
  const required = await authorizeDeploy({
    workflow,
    library,
    principal: scope.actingAs(),
    source,
    owner,
    audit: options.audit,
  });
  const { unavailablePlugins, checkAgent } = options;
  // Triggers compile first: a refused secret or route wins over the warnings, and a short
  // secret is itself a warning (refused with `strict`).
  // A webhook path another owner's workflow serves is refused without naming it.
  const activation = await scope.activations.compile(
    workflow,
    owner,
    (key) => !deployer || deployer.admin === true || scope.ownerOf(key) === deployer.owner,
  );
  const found = {
    validator: valid.warnings,
    plugins: (await unavailablePlugins?.(workflow, library)) ?? [],
    agents: checkAgent ? await unavailableAgents(workflow, library, checkAgent) : [],
    triggers: activation.hooks.flatMap((hook) => hook.warnings),
  };
  const warnings = deployWarnings(workflow.name, found, strict);
  return { valid, previous, activation, warnings, required: mergeGuards(guard, required) };
}
