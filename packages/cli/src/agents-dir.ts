import { AgentCatalog, loadAgentDir, type AgentDefinition } from '@weft/agents';
import { formatPath, listSteps, type Diagnostic, type WorkflowDefinition } from '@weft/engine';

/**
 * The agent definitions of `--agents <dir>`, else of `fallback` (weft.config.yaml's `agents`),
 * else of `./agents`; only the directory `--agents` names must exist.
 */
export function loadAgentsFlag(
  dir: string | undefined,
  fallback?: string,
): Promise<AgentDefinition[]> {
  return loadAgentDir(dir ?? fallback ?? 'agents', { missingOk: dir === undefined });
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
