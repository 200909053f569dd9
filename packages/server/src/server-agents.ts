import {
  agentRef,
  AgentCatalog,
  AgentRunner,
  AiSdkBackend,
  BudgetsAcrossRuns,
  CostLedger,
  highestServedVersion,
  langChainProviderModel,
  LangChainBackend,
  loadAgentDir,
  providerModel,
  publishedActions,
  type ActionLookup,
  type AgentDefinition,
  type ModelTurnObserver,
} from '@weft/agents';
import {
  AGENT_REF_PATTERN,
  type ActionCall,
  type ExecutionsStore,
  type RegistryStore,
  type SecretsProvider,
} from '@weft/core';
import type { Router } from '@weft/router';
import { journaledCostUsd, type AgentCheck } from '@weft/runtime';
import { publishedSecretRefusal } from './published-agent-secrets.js';
import { PublishedAgents } from './published-agents.js';

const AGENT_REF = new RegExp(AGENT_REF_PATTERN);

/**
 * The runner of server-side agent steps: the agent definitions of `agentsDir` (default
 * `./agents`, which may be missing: then none) and those published to the registry (kind
 * `agent`, kept current by the returned {@link PublishedAgents}), the ai-sdk and langchain
 * backends, tool schemas from the registry's published plugin definitions (of the version the
 * router's instances serve, when `served` knows one), keys from the
 * runtime's secrets (`WEFT_SECRET_<NAME>`). The models of published agents are called through
 * `publishedModelFetch` (the dispatch's egress policy of published plugins), on either backend;
 * those of the local directory are the operator's own. A published agent's `api_key_secret` must be one of
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
    /** Wraps the `fetch` of a published agent's model (`ServerDispatch.publishedModelFetch`). */
    publishedModelFetch: (
      fetch: typeof globalThis.fetch,
      agentRef: string,
    ) => typeof globalThis.fetch;
    publishedAgentSecrets?: readonly string[];
    onError?: (error: unknown, slug: string) => void;
    turns?: ModelTurnObserver | undefined;
    executions?: Pick<ExecutionsStore, 'steps'>;
    /** The version the router's instances of a plugin serve ({@link servedVersionOf}). */
    served?: (slug: string, action: string) => Promise<string | undefined>;
    /** Budgets across runs (the store's ledger); without it a step under budgets fails. */
    budgets?: BudgetsAcrossRuns;
  },
): Promise<{ runner: AgentRunner; published: PublishedAgents }> {
  const local = await loadAgentDir(agentsDir ?? 'agents', { missingOk: agentsDir === undefined });
  const catalog = new AgentCatalog(local);
  const published = new PublishedAgents(registry, catalog, options.onError);
  await published.load();
  const checked = (agent: AgentDefinition, fetch: typeof globalThis.fetch) =>
    published.has(agent) ? options.publishedModelFetch(fetch, agentRef(agent)) : fetch;
  const runner = new AgentRunner({
    agents: catalog,
    actions: registryActions(registry, options.served),
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
    ...(options.budgets ? { budgets: options.budgets } : {}),
    ...(options.executions
      ? { costs: new CostLedger({ spent: (id) => journaledCostUsd(options.executions!, id) }) }
      : {}),
  });
  return { runner, published };
}

/**
 * The deployments' check of agent references (`checkAgent` of the triggers): what a run's check
 * before its first step would refuse, by the runtime's own agent runner (`AgentRunner.check`: no
 * agent of the `--agents` directory or of the registry resolves the reference, or the policy of
 * `WEFT_PUBLISHED_AGENT_SECRETS` refuses the published one that does), as the refusal's
 * message. A refused reference's slug is read again from the registry (`refresh`) and checked
 * once more, so that an agent another replica published a moment ago, whose announcement has
 * not arrived yet, counts. Without a runner every agent step is refused (its runs fail
 * `UNAVAILABLE`).
 */
export function agentCheckOf(
  agents: { check?(target: ActionCall['target'], action: string): void } | undefined,
  refresh?: (slug: string) => Promise<void>,
): AgentCheck {
  const refusal = (ref: string): string | undefined => {
    try {
      agents?.check?.({ kind: 'connector', ref }, 'run');
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  };
  return async (ref) => {
    if (!agents) return 'this server runs no agent steps';
    const first = refusal(ref);
    const match = AGENT_REF.exec(ref);
    if (first === undefined || !refresh || !match) return first;
    await refresh(`${match[1]}-${match[2]}`);
    return refusal(ref);
  };
}

/**
 * The version of `slug` whose instances serve `action` in the router's table (the highest when
 * they differ): the one a call of that action reaches, so the one its tool's schema is read for.
 */
export function servedVersionOf(
  router: Pick<Router, 'table'>,
): (slug: string, action: string) => Promise<string | undefined> {
  const highest = (slug: string, action: string) =>
    highestServedVersion(
      router.table.instancesOf(slug).map((i) => i.record),
      slug,
      action,
    );
  // This replica's copy of the table may not hold an instance registered on another replica a
  // moment ago: on a miss, the store is read before falling back to the latest published.
  return async (slug, action) => {
    const found = highest(slug, action);
    if (found !== undefined) return found;
    await router.table.refresh();
    return highest(slug, action);
  };
}

/**
 * Input schemas of actions from the registry's published definitions ({@link publishedActions}:
 * the pinned version, else the one the router's instances serve, else the latest).
 */
function registryActions(
  registry: RegistryStore,
  served?: (slug: string, action: string) => Promise<string | undefined>,
): ActionLookup {
  return publishedActions({
    where: "this server's registry",
    ...(served ? { served } : {}),
    latest: async (slug) => (await registry.getPlugin(slug))?.plugin.listing?.latest_version,
    actions: async (slug, version) => (await registry.getDefinition(slug, version))?.actions,
  });
}
