import {
  actionsOfConnectors,
  AgentCatalog,
  AgentRunner,
  AiSdkBackend,
  LangChainBackend,
  loadAgentDir,
  type ActionLookup,
  type AgentDefinition,
} from '@weft/agents';
import { trace } from '@opentelemetry/api';
import { EnvironmentSecretsProvider } from '@weft/core';
import { formatPath, listSteps, type Diagnostic, type WorkflowDefinition } from '@weft/engine';
import type { Weft } from '@weft/sdk';
import { modelTurnSpans, SCOPE } from '@weft/telemetry';
import { firstKnown } from './remote-actions.js';

/** The agent definitions of `--agents <dir>` (default `./agents`, which may be missing). */
export function loadAgentsFlag(dir: string | undefined): Promise<AgentDefinition[]> {
  return loadAgentDir(dir ?? 'agents', { missingOk: dir === undefined });
}

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
): AgentRunner {
  const local = actionsOfConnectors(() => weft().invoker.connectors());
  return new AgentRunner({
    agents,
    actions: remote.length > 0 ? firstKnown([local, ...remote]) : local,
    secrets: new EnvironmentSecretsProvider(process.env),
    backends: [new AiSdkBackend(), new LangChainBackend()],
    turns: modelTurnSpans(trace.getTracer(SCOPE)),
  });
}

/** An error for each agent step whose reference no loaded definition satisfies. */
export function unknownAgentDiagnostics(
  file: string,
  workflows: readonly WorkflowDefinition[],
  agents: AgentDefinition[],
): Diagnostic[] {
  const catalog = new AgentCatalog(agents);
  const diagnostics: Diagnostic[] = [];
  workflows.forEach((workflow, w) => {
    for (const { step, path } of listSteps(workflow, ['workflows', w])) {
      if (step.agent === undefined || catalog.find(step.agent)) continue;
      let message = `unknown agent ${step.agent}`;
      try {
        catalog.resolve(step.agent);
      } catch (error) {
        message = (error as Error).message;
      }
      diagnostics.push({
        severity: 'error',
        code: 'reference',
        path: formatPath([...path, 'agent']),
        message,
        file,
      });
    }
  });
  return diagnostics;
}
