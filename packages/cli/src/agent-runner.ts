import {
  actionsOfConnectors,
  AgentRunner,
  BudgetsAcrossRuns,
  AiSdkBackend,
  LangChainBackend,
  type ActionLookup,
  type AgentDefinition,
} from '@weft/agents';
import { trace } from '@opentelemetry/api';
import { EnvironmentSecretsProvider } from '@weft/core';
import type { Weft } from '@weft/sdk';
import { modelTurnSpans, SCOPE } from '@weft/telemetry';
import { firstKnown } from './remote-actions.js';

// Imported by `workflow run` and `workflow test` only when a workflow file has agent steps to
// run: with the tracing and the remote lookups it brings, it is no cost of the other commands.

/**
 * The runner of agent steps for runs of the CLI: the ai-sdk and langchain backends, tools checked
 * against the connectors `weft()` has loaded, then against `remote` (the input schemas of the
 * actions that run on the router or the server: see `remoteActions`), keys from the process
 * environment. Model turns become GenAI spans of the process's tracer (the one `workflow run`
 * starts when OTLP is configured; without it the OpenTelemetry API's no-op tracer, which costs
 * nothing measurable).
 */
export function localAgentRunner(
  agents: AgentDefinition[],
  weft: () => Weft,
  remote: readonly ActionLookup[] = [],
  budgets?: BudgetsAcrossRuns,
): AgentRunner {
  const local = actionsOfConnectors(() => weft().invoker.connectors());
  return new AgentRunner({
    agents,
    actions: remote.length > 0 ? firstKnown([local, ...remote]) : local,
    secrets: new EnvironmentSecretsProvider(process.env),
    backends: [new AiSdkBackend(), new LangChainBackend()],
    turns: modelTurnSpans(trace.getTracer(SCOPE)),
    ...(budgets ? { budgets } : {}),
  });
}

/** Where `weft workflow run` keeps the ledger of budgets across runs: `.weft/weft.db`. */
export const LOCAL_BUDGETS_DIR = '.weft';

/**
 * The budgets across runs of local runs (a workflow that declares `budgets`): a ledger in the
 * SQLite store under `dir` (`.weft/weft.db`, the store `weft server --data-dir ./.weft` uses too,
 * so local runs and a local server count together), its period by the UTC clock. `close`
 * closes the store once the runs ended. A store that cannot be opened fails the run: budgets
 * are enforced or the run does not start.
 */
export async function localBudgets(
  dir = LOCAL_BUDGETS_DIR,
): Promise<{ budgets: BudgetsAcrossRuns; close: () => Promise<void> }> {
  const { openStore } = await import('@weft/store');
  const store = await openStore({ kind: 'sqlite', dataDir: dir });
  return {
    budgets: new BudgetsAcrossRuns({ ledger: store.budgets, where: `${dir}/weft.db` }),
    close: async () => {
      await store.executions.close();
      await store.registry.close();
    },
  };
}
