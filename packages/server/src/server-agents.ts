import {
  AgentRunner,
  AiSdkBackend,
  CostLedger,
  loadAgentDir,
  type ActionLookup,
} from '@weft/agents';
import type { ExecutionsStore, RegistryStore, SecretsProvider } from '@weft/core';
import { journaledCostUsd } from '@weft/runtime';
import { pluginOf } from './runtime-actions.js';

/**
 * The runner of server-side agent steps: the agent definitions of `agentsDir` (default
 * `./agents`, which may be missing: then none), the ai-sdk backend, tool schemas from the
 * registry's published plugin definitions, keys from the runtime's secrets (`WEFT_SECRET_<NAME>`),
 * and `maxCost` spending that starts, for an execution taken over from another replica, from
 * what its journaled steps cost (`executions`). Undefined when there are no agents.
 */
export async function serverAgents(
  agentsDir: string | undefined,
  registry: RegistryStore,
  secrets: SecretsProvider,
  executions?: Pick<ExecutionsStore, 'steps'>,
): Promise<AgentRunner | undefined> {
  const agents = await loadAgentDir(agentsDir ?? 'agents', { missingOk: agentsDir === undefined });
  if (agents.length === 0) return undefined;
  return new AgentRunner({
    agents,
    actions: registryActions(registry),
    secrets,
    backends: [new AiSdkBackend()],
    ...(executions
      ? { costs: new CostLedger({ spent: (id) => journaledCostUsd(executions, id) }) }
      : {}),
  });
}

/** Input schemas of actions from the published definition (the version named, else latest). */
function registryActions(registry: RegistryStore): ActionLookup {
  return async (target, action) => {
    const { slug, version } = pluginOf(target);
    const chosen = version ?? (await registry.getPlugin(slug))?.plugin.listing?.latest_version;
    if (!chosen) return undefined;
    const definition = await registry.getDefinition(slug, chosen);
    const found = definition?.actions.find((a) => a.name === action);
    if (!found?.input_schema) return undefined;
    return {
      inputSchema: found.input_schema as Record<string, unknown>,
      description: found.description,
    };
  };
}
