import { CONNECTOR_REF_PATTERN, type PluginReference } from '@weft/core';
import type { StepDefinition, WorkflowDefinition } from '@weft/engine';

const CONNECTOR_REF = new RegExp(CONNECTOR_REF_PATTERN);

/**
 * The plugins a workflow's steps reference (parallel children included): `connector:` references
 * carry their version; a bare `plugin: <slug>` is resolved with `resolveVersion` (e.g. the
 * registry's latest at deployment time) or recorded with a null version.
 */
export async function pluginReferences(
  workflow: WorkflowDefinition,
  resolveVersion?: (slug: string) => Promise<string | undefined>,
): Promise<PluginReference[]> {
  const found = new Map<string, PluginReference>();
  const visit = async (steps: readonly StepDefinition[]) => {
    for (const step of steps) {
      if (typeof step.connector === 'string') {
        const match = CONNECTOR_REF.exec(step.connector);
        if (match) found.set(`${match[2]}@${match[3]}`, { slug: match[2]!, version: match[3]! });
      } else if (typeof step.plugin === 'string' && !found.has(`${step.plugin}@`)) {
        const version = (await resolveVersion?.(step.plugin)) ?? null;
        found.set(`${step.plugin}@${version ?? ''}`, { slug: step.plugin, version });
      }
      if (Array.isArray(step.parallel)) await visit(step.parallel);
    }
  };
  await visit(workflow.steps);
  return [...found.values()];
}
