import { listSteps, pickWorkflow, type WorkflowDefinition } from '@weft/engine';

/**
 * Why this server cannot run the agent an agent step references
 * (`agent:<namespace>/<name>@<range>`): the refusal's message (no agent resolves, or the
 * server's policy refuses the one that does), or undefined when it can. The server fills it with
 * its own agent resolution (`AgentRunner.check`).
 */
export type AgentCheck = (ref: string) => Promise<string | undefined> | string | undefined;

/** An agent step whose reference this server cannot run. */
export interface UnavailableAgent {
  /** The workflow the step is in: the deployed one, or a workflow it calls. */
  workflow: string;
  step: string;
  /** The reference as the step writes it. */
  agent: string;
  /** Why it cannot run ({@link AgentCheck}). */
  reason: string;
}

/**
 * The agent steps of `workflow` (parallel children included) and of the workflows its
 * subworkflow steps call (from `library`, transitively) whose reference `check` refuses: one
 * per step, in file order, each distinct reference checked once.
 */
export async function unavailableAgents(
  workflow: WorkflowDefinition,
  library: readonly WorkflowDefinition[],
  check: AgentCheck,
): Promise<UnavailableAgent[]> {
  const reasons = new Map<string, string | undefined>();
  const found: UnavailableAgent[] = [];
  const visited = new Set<WorkflowDefinition>();
  const visit = async (current: WorkflowDefinition): Promise<void> => {
    if (visited.has(current)) return;
    visited.add(current);
    for (const { step } of listSteps(current)) {
      if (step.type === 'workflow' && step.workflow !== undefined) {
        const called = pickWorkflow(library, step.workflow, step.version);
        if (called) await visit(called);
        continue;
      }
      if (step.type !== 'agent' || typeof step.agent !== 'string') continue;
      if (!reasons.has(step.agent)) reasons.set(step.agent, await check(step.agent));
      const reason = reasons.get(step.agent);
      if (reason !== undefined) {
        found.push({ workflow: current.name, step: step.name, agent: step.agent, reason });
      }
    }
  };
  await visit(workflow);
  return found;
}
