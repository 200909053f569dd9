import type {
  AffectedExecutionBody,
  DeployImpact,
  DeploymentRecord,
  ExecutionChangeBody,
  ExecutionsStore,
  StoredExecution,
} from '@weft/core';
import { listSteps, type WorkflowDefinition } from '@weft/engine';
import { restoreWorkflow } from '../../executions/definition.js';
import { diffInputs } from './input-diff.js';
import { diffSteps, nextStepOf, remainingStepChanges } from './step-diff.js';
import { diffTriggers } from './trigger-diff.js';
import { callsBroken, UpgradeCheck, type UpgradeSources } from './upgrades.js';

/** How many executions of each status in progress the check reads, by default. */
export const IMPACT_LIMIT = 100;

/** What the impact check reads (the server: its executions store and registry). */
export interface ImpactSources {
  executions: Pick<ExecutionsStore, 'list' | 'steps'>;
  /** The registry, for plugin and agent upgrades; without it they are listed, not compared. */
  registry?: UpgradeSources;
  /** At most this many executions of each status are read. Default {@link IMPACT_LIMIT}. */
  limit?: number;
}

/** A deployment to check: the revision it replaces and the new one. */
export interface ImpactQuestion {
  owner: string;
  /** The active revision (undefined: a first deploy) and its definition, loaded. */
  previous: { record: DeploymentRecord; workflow: WorkflowDefinition } | undefined;
  next: { workflow: WorkflowDefinition; raw: Record<string, unknown> };
  nowMs: number;
}

const IN_PROGRESS = ['pending', 'running', 'waiting'] as const;

/**
 * What deploying `next` would do to the work in progress of the workflow (docs/workflow-language.md
 * #check-the-impact-before-you-deploy): the step, input, plugin, agent and trigger changes from
 * the deployed revision, and, for each execution pending, running or waiting, what the new
 * revision changes of the steps it has left, compared with the revision it started on (which it
 * keeps: executions are pinned). Reads only.
 */
export async function deployImpact(
  sources: ImpactSources | undefined,
  question: ImpactQuestion,
): Promise<DeployImpact> {
  const { previous, next, owner } = question;
  const triggers = diffTriggers(previous?.record.definition, next.raw, question.nowMs);
  const limit = sources?.limit ?? IMPACT_LIMIT;
  const counts = { pending: 0, running: 0, waiting: 0 };
  const base = {
    previous_revision: previous?.record.revision ?? null,
    previous_version: previous?.record.version ?? null,
    pinned: true as const,
    ...triggers,
  };
  if (!previous) {
    return {
      ...base,
      first_deploy: true,
      breaking: false,
      summary: `first deploy of "${next.workflow.name}": no work in progress to change`,
      steps: [],
      inputs: [],
      executions: { ...counts, limit, capped: false, affected: [] },
      upgrades: [],
    };
  }
  const upgrades = new UpgradeCheck(sources?.registry);
  const affected: AffectedExecutionBody[] = [];
  let capped = false;
  for (const status of IN_PROGRESS) {
    const read = sources
      ? await inProgress(sources.executions, owner, next.workflow.name, status, limit)
      : { found: [], capped: false };
    if (read.capped) capped = true;
    const ours = read.found;
    counts[status] = ours.length;
    for (const execution of ours) {
      const hit = await affectedBy(sources!, execution, next.workflow, previous.workflow, upgrades);
      if (hit) affected.push(hit);
    }
  }
  const breaking = affected.some(isBreaking);
  const found = {
    steps: diffSteps(previous.workflow, next.workflow),
    inputs: diffInputs(previous.workflow, next.workflow),
    upgrades: (await upgrades.between(previous.workflow, next.workflow)).map(
      ({ brokenActions: _, ...body }) => body,
    ),
  };
  return {
    ...base,
    first_deploy: false,
    breaking,
    summary: summaryOf(counts, affected, capped, breaking),
    ...found,
    executions: { ...counts, limit, capped, affected },
  };
}

/** Most pages of one status read, when the API's inline runs of the same name fill them. */
const MAX_PAGES = 10;

/**
 * The executions of the deployment in `status` (at most `limit`; `capped` when there are more):
 * runs of its triggers and manual runs, not a workflow of the same name sent inline by the API.
 */
async function inProgress(
  executions: ImpactSources['executions'],
  owner: string,
  workflow: string,
  status: (typeof IN_PROGRESS)[number],
  limit: number,
): Promise<{ found: StoredExecution[]; capped: boolean }> {
  const found: StoredExecution[] = [];
  let after: { created_at: string; id: string } | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const rows = await executions.list({
      owner,
      workflow,
      status,
      limit: limit + 1,
      ...(after ? { after } : {}),
    });
    found.push(...rows.filter((e) => e.trigger.type !== 'api'));
    if (found.length > limit) return { found: found.slice(0, limit), capped: true };
    const last = rows[rows.length - 1];
    if (rows.length <= limit || !last) return { found, capped: false };
    after = { created_at: last.created_at, id: last.id };
  }
  return { found, capped: true };
}

/**
 * Whether an affected execution makes a deploy breaking: it waits (for approval) and the deploy
 * brings it a change the deployed revision does not already have.
 */
export function isBreaking(execution: AffectedExecutionBody): boolean {
  return execution.status === 'waiting' && execution.changes.some((c) => c.introduced);
}

/**
 * What `next` changes of the steps an execution has left; undefined when nothing. Each change
 * says whether this deploy introduces it (`deployed`, the active revision, does not have it:
 * a change an earlier deploy was forced over is not refused again).
 */
async function affectedBy(
  sources: ImpactSources,
  execution: StoredExecution,
  next: WorkflowDefinition,
  deployed: WorkflowDefinition,
  upgrades: UpgradeCheck,
): Promise<AffectedExecutionBody | undefined> {
  const pinned = restoreWorkflow(execution.definition).workflow;
  if (!Array.isArray(pinned.steps)) return undefined;
  const done = await finishedSteps(sources, execution);
  const changes = await changesOf(pinned, next, done, execution.status, upgrades);
  if (changes.length === 0) return undefined;
  const known = new Set(
    (await changesOf(pinned, deployed, done, execution.status, upgrades)).map(keyOf),
  );
  return {
    execution_id: execution.id,
    status: execution.status,
    waiting_for: execution.status === 'waiting' ? (execution.waiting_for?.kind ?? null) : null,
    workflow_version: execution.workflow_version,
    next_step: nextStepOf(pinned, done),
    changes: changes.map((c) => ({ ...c, introduced: !known.has(keyOf(c)) })),
  };
}

/** What the revision `target` changes of the steps left to a run of `pinned`. */
async function changesOf(
  pinned: WorkflowDefinition,
  target: WorkflowDefinition,
  done: ReadonlySet<string>,
  status: string,
  upgrades: UpgradeCheck,
): Promise<Omit<ExecutionChangeBody, 'introduced'>[]> {
  const changes: Omit<ExecutionChangeBody, 'introduced'>[] = remainingStepChanges(
    pinned,
    target,
    done,
  );
  if (status !== 'running') {
    // Inputs are checked when a run starts: a run that started has passed them.
    for (const input of diffInputs(pinned, target).filter((c) => c.breaking)) {
      changes.push({
        change: 'input_narrowed',
        input: input.input,
        detail: `input "${input.input}": ${input.change}`,
      });
    }
  }
  for (const upgrade of (await upgrades.between(pinned, target)).filter((u) => u.breaking)) {
    for (const { step } of listSteps(target)) {
      if (done.has(step.name) || !callsBroken(step, upgrade)) continue;
      changes.push({
        change: 'plugin_breaking',
        step: step.name,
        detail: `step "${step.name}" calls ${upgrade.kind} ${upgrade.slug} ${upgrade.from ?? '?'} → ${upgrade.to ?? '?'}, whose change breaks it`,
      });
    }
  }
  return changes;
}

function keyOf(change: Omit<ExecutionChangeBody, 'introduced'>): string {
  return `${change.change} ${change.step ?? ''} ${change.input ?? ''} ${change.detail}`;
}

/** The top-level steps an execution finished, from its journal (none before it starts). */
async function finishedSteps(
  sources: ImpactSources,
  execution: StoredExecution,
): Promise<Set<string>> {
  if (execution.status === 'pending') return new Set();
  const rows = await sources.executions.steps(execution.id);
  return new Set(rows.map((r) => r.path).filter((p) => !p.includes('/') && !p.includes('[')));
}

function summaryOf(
  counts: { pending: number; running: number; waiting: number },
  affected: AffectedExecutionBody[],
  capped: boolean,
  breaking: boolean,
): string {
  const total = counts.pending + counts.running + counts.waiting;
  const atLeast = capped ? 'at least ' : '';
  if (total === 0) return 'no execution in progress: nothing to change';
  const waiting = affected.filter(isBreaking).length;
  return (
    `${atLeast}${total} execution${total === 1 ? '' : 's'} in progress (they keep the revision they started on); ` +
    `${affected.length} meet${affected.length === 1 ? 's' : ''} a change of the steps they have left` +
    (breaking ? `, ${waiting} of them waiting for a change this deploy brings (breaking)` : '')
  );
}
