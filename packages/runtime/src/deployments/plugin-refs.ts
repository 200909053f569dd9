import {
  CONNECTOR_REF_PATTERN,
  type DeploymentStore,
  type PluginReference,
  type PluginUsage,
} from '@weft/core';
import type { StepDefinition, WorkflowDefinition } from '@weft/engine';

const CONNECTOR_REF = new RegExp(CONNECTOR_REF_PATTERN);

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
        const match = CONNECTOR_REF.exec(step.connector);
        if (match) found.set(`${match[2]}@${match[3]}`, { slug: match[2]!, version: match[3]! });
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
 */
export function pluginUsage(
  store: DeploymentStore,
  latestVersion?: (slug: string) => Promise<string | undefined>,
): PluginUsage {
  return {
    activeWorkflows: async (slug, version) => {
      const pinned = await store.usersOf(slug, version);
      if (!latestVersion || (await latestVersion(slug)) !== version) return pinned;
      const bare = await store.usersOf(slug, null);
      return [...new Set([...pinned, ...bare])].sort();
    },
  };
}
