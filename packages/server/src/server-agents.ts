import {
  AgentRunner,
  AiSdkBackend,
  LangChainBackend,
  loadAgentDir,
  type ActionLookup,
  type ModelTurnObserver,
} from '@weft/agents';
import type { RegistryStore, SecretsProvider } from '@weft/core';
import { pluginOf } from './runtime-actions.js';

/**
 * The runner of server-side agent steps: the agent definitions of `agentsDir` (default
 * `./agents`, which may be missing: then none), the ai-sdk and langchain backends, tool schemas from the
 * registry's published plugin definitions, keys from the runtime's secrets (`WEFT_SECRET_<NAME>`).
 * `turns` (the tracing's GenAI spans) sees each model turn. Undefined when there are no agents.
 */
export async function serverAgents(
  agentsDir: string | undefined,
  registry: RegistryStore,
  secrets: SecretsProvider,
  turns?: ModelTurnObserver,
): Promise<AgentRunner | undefined> {
  const agents = await loadAgentDir(agentsDir ?? 'agents', { missingOk: agentsDir === undefined });
  if (agents.length === 0) return undefined;
  return new AgentRunner({
    agents,
    actions: registryActions(registry),
    secrets,
    backends: [new AiSdkBackend(), new LangChainBackend()],
    ...(turns ? { turns } : {}),
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
