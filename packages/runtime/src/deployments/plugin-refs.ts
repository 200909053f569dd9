import {
  AGENT_REF_PATTERN,
  parseConnectorRef,
  type DeploymentStore,
  type PluginReference,
  type PluginUsage,
} from '@weft/core';
import { listSteps, type StepDefinition, type WorkflowDefinition } from '@weft/engine';

const AGENT_REF = new RegExp(AGENT_REF_PATTERN);

/**
 * For a slug of kind `agent`, the version a reference's range resolves to (as the server
 * resolves agents: the version written exactly, else the highest match among the versions that
 * are not removed); undefined for any other slug.
 */
export type AgentResolver = (
  slug: string,
) => Promise<((range: string) => string | undefined) | undefined>;

/**
 * The plugins a workflow's steps reference (parallel children included): `connector:` references
 * carry their version; a bare `plugin: <slug>` is recorded with a null version, because each run
 * uses whatever version is the registry's latest at that time (see {@link pluginUsage}).
 */
export function pluginReferences(workflow: WorkflowDefinition): PluginReference[] {
  const found = new Map<string, PluginReference>();
  const visit = (steps: readonly StepDefinition[]) => {
    for (const step of steps) {
      if (typeof step.connector === 'string') {
        const ref = parseConnectorRef(step.connector);
        if (ref) found.set(`${ref.name}@${ref.version}`, { slug: ref.name, version: ref.version });
      } else if (typeof step.plugin === 'string') {
        found.set(`${step.plugin}@`, { slug: step.plugin, version: null });
      }
      if (Array.isArray(step.parallel)) visit(step.parallel);
    }
  };
  visit(workflow.steps);
  return [...found.values()];
}

/**
 * The registry's "in use" check for unpublish over the deployments: a version is in use by the
 * deployments that pin it and, when it is the registry's latest at the time of the check
 * (`latestVersion`), by those that reference the plugin bare, since their next run uses it.
 * A published agent's version (`agents` tells which slugs are agents and how their ranges
 * resolve) is in use by the deployments with an agent step whose `agent:<namespace>/<name>@<range>`
 * (slug `<namespace>-<name>`) resolves to it.
 */
export function pluginUsage(
  store: DeploymentStore,
  latestVersion?: (slug: string) => Promise<string | undefined>,
  agents?: AgentResolver,
): PluginUsage {
  return {
    activeWorkflows: async (slug, version) => {
      const pinned = await store.usersOf(slug, version);
      const bare =
        latestVersion && (await latestVersion(slug)) === version
          ? await store.usersOf(slug, null)
          : [];
      const resolve = agents ? await agents(slug) : undefined;
      const agentUsers = resolve ? await agentUsersOf(store, slug, version, resolve) : [];
      return [...new Set([...pinned, ...bare, ...agentUsers])].sort();
    },
  };
}

/**
 * The active deployments with an agent step whose reference resolves to `slug@version`. Agent
 * references are ranges, which no index can answer: every active definition is read (an
 * unpublish is rare; a plugin slug never gets here).
 */
async function agentUsersOf(
  store: DeploymentStore,
  slug: string,
  version: string,
  resolve: (range: string) => string | undefined,
): Promise<string[]> {
  const users: string[] = [];
  for (const record of await store.list()) {
    const workflow = record.definition as unknown as WorkflowDefinition;
    if (!Array.isArray(workflow.steps)) continue;
    const uses = listSteps(workflow).some(({ step }) => {
      const match = typeof step.agent === 'string' ? AGENT_REF.exec(step.agent) : null;
      return match !== null && `${match[1]}-${match[2]}` === slug && resolve(match[3]!) === version;
    });
    if (uses) users.push(record.name);
  }
  return users;
}
