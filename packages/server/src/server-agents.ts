import {
  agentRef,
  AgentCatalog,
  AgentRunner,
  AiSdkBackend,
  CostLedger,
  langChainProviderModel,
  LangChainBackend,
  loadAgentDir,
  providerModel,
  type ActionLookup,
  type AgentDefinition,
  type ModelTurnObserver,
} from '@weft/agents';
import type { ExecutionsStore, RegistryStore, SecretsProvider } from '@weft/core';
import { journaledCostUsd } from '@weft/runtime';
import { egressCheckedFetch } from './agent-egress.js';
import { publishedSecretRefusal } from './published-agent-secrets.js';
import { PublishedAgents } from './published-agents.js';
import { pluginEgress, pluginOf, type PluginEgress } from './runtime-actions.js';

/**
 * The runner of server-side agent steps: the agent definitions of `agentsDir` (default
 * `./agents`, which may be missing: then none) and those published to the registry (kind
 * `agent`, kept current by the returned {@link PublishedAgents}), the ai-sdk and langchain
 * backends, tool schemas from the registry's published plugin definitions, keys from the
 * runtime's secrets (`WEFT_SECRET_<NAME>`). The models of published agents are called under the
 * egress policy of published plugins (`egressAllowlist`), on either backend; those of the local
 * directory are the operator's own. A published agent's `api_key_secret` must be one of
 * `publishedAgentSecrets` (names, or prefixes ending in `*`; default none), else its step fails
 * with `VALIDATION` before the secret is read; local agents read any secret. `turns` (the tracing's GenAI spans) sees each model turn.
 * `maxCost` spending starts, for an execution taken over from another replica, from what its
 * journaled steps cost (`executions`).
 */
export async function serverAgents(
  agentsDir: string | undefined,
  registry: RegistryStore,
  secrets: SecretsProvider,
  options: {
    egressAllowlist: readonly string[];
    publishedAgentSecrets?: readonly string[];
    egress?: Pick<PluginEgress, 'refusal'>;
    onError?: (error: unknown, slug: string) => void;
    turns?: ModelTurnObserver | undefined;
    executions?: Pick<ExecutionsStore, 'steps'>;
  },
): Promise<{ runner: AgentRunner; published: PublishedAgents }> {
  const local = await loadAgentDir(agentsDir ?? 'agents', { missingOk: agentsDir === undefined });
  const catalog = new AgentCatalog(local);
  const published = new PublishedAgents(registry, catalog, options.onError);
  await published.load();
  const egress = options.egress ?? pluginEgress(options.egressAllowlist);
  const checked = (agent: AgentDefinition, fetch: typeof globalThis.fetch) =>
    published.has(agent) ? egressCheckedFetch(fetch, egress, agentRef(agent)) : fetch;
  const runner = new AgentRunner({
    agents: catalog,
    actions: registryActions(registry),
    secrets,
    backends: [
      new AiSdkBackend({
        model: (agent, apiKey, fetch) => providerModel(agent, apiKey, checked(agent, fetch)),
      }),
      new LangChainBackend({
        model: (agent, apiKey, fetch) =>
          langChainProviderModel(agent, apiKey, checked(agent, fetch)),
      }),
    ],
    secretRefusal: publishedSecretRefusal(options.publishedAgentSecrets ?? [], (agent) =>
      published.has(agent),
    ),
    ...(options.turns ? { turns: options.turns } : {}),
    ...(options.executions
      ? { costs: new CostLedger({ spent: (id) => journaledCostUsd(options.executions!, id) }) }
      : {}),
  });
  return { runner, published };
}

/** Input schemas of actions from the published definition (the version named, else latest). */
function registryActions(registry: RegistryStore): ActionLookup {
  return async (target, action) => {
    const { slug, version } = pluginOf(target);
    const state = version === undefined ? await registry.getPlugin(slug) : undefined;
    const chosen = version ?? state?.plugin.listing?.latest_version;
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
