import { fromErrorObject, type DeployImpact } from '@weft/core';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';

/** What the server answered a dry run (`PUT /workflows/{name}?dry_run=true`). */
export interface CheckAnswer {
  name: string;
  version: string;
  revision: number;
  previous_version: string | null;
  warnings: string[];
  impact?: DeployImpact;
}

/** Sends one definition with a query, answering status and JSON. */
export type Put = (
  definition: Record<string, unknown>,
  query: string,
) => Promise<{ status: number; json: unknown }>;

/**
 * `weft workflow deploy --check`: asks the server what deploying each definition would do to
 * the work in progress (a dry run: nothing deployed) and prints it (`--output json`: the
 * answers). Exit 0 when nothing is breaking, 1 when a deploy would be refused for breaking
 * changes to executions waiting for approval (it then needs `--force`).
 */
export async function checkDeploy(
  io: Io,
  put: Put,
  definitions: readonly Record<string, unknown>[],
  server: string,
  options: { strict: boolean; json: boolean },
): Promise<number> {
  const answers: CheckAnswer[] = [];
  for (const definition of definitions) {
    const answer = await put(definition, `?dry_run=true${options.strict ? '&strict=true' : ''}`);
    if (answer.status >= 400)
      throw fromErrorObject(answer.json ?? { message: `HTTP ${answer.status}` });
    answers.push(answer.json as CheckAnswer);
  }
  const breaking = answers.some((a) => a.impact?.breaking === true);
  if (options.json) io.out(`${JSON.stringify(answers, null, 2)}\n`);
  else for (const answer of answers) io.out(formatCheck(answer, server));
  if (!options.json && breaking)
    io.err('breaking: a deploy is refused (409) unless --force; nothing was deployed\n');
  return breaking ? EXIT.failure : EXIT.ok;
}

/** The readable report of one dry run. */
export function formatCheck(answer: CheckAnswer, server: string): string {
  const impact = answer.impact;
  const was = answer.previous_version ? `, deployed: ${answer.previous_version}` : '';
  const lines = [`checked ${answer.name} ${answer.version}${was} on ${server} (nothing deployed)`];
  for (const warning of answer.warnings) lines.push(`  warning: ${warning}`);
  if (!impact) return `${lines.join('\n')}\n`;
  if (impact.first_deploy) {
    lines.push('  first deploy: no work in progress to change');
  } else {
    lines.push(
      `  revision ${impact.previous_revision} → ${answer.revision}; work in progress keeps the revision it started on (pinned)`,
      `  ${impact.summary}`,
    );
  }
  section(
    lines,
    'steps',
    impact.steps.map((s) => {
      if (s.change === 'renamed') return `~ ${s.step} renamed ${s.to}`;
      return `${{ removed: '-', added: '+', moved: '↕' }[s.change]} ${s.step} ${s.change}`;
    }),
  );
  section(
    lines,
    'inputs',
    impact.inputs.map((i) => `${i.breaking ? '!' : '+'} ${i.input}: ${i.change}`),
  );
  const e = impact.executions;
  section(
    lines,
    `executions in progress: ${e.waiting} waiting, ${e.running} running, ${e.pending} pending${e.capped ? ` (at least: ${e.limit} of each read)` : ''}`,
    e.affected.map((x) => {
      const status = x.waiting_for ? `${x.status} for ${x.waiting_for}` : x.status;
      const next = x.next_step ? `, next step ${x.next_step}` : '';
      const breaks = x.status === 'waiting' && x.changes.some((c) => c.introduced);
      const changes = x.changes.map((c) =>
        c.introduced ? c.detail : `${c.detail} (already deployed)`,
      );
      return `${breaks ? '!' : '~'} ${x.execution_id} (${status}${next}, on ${x.workflow_version}): ${changes.join('; ')}`;
    }),
    !impact.first_deploy,
  );
  section(
    lines,
    'upgrades',
    impact.upgrades.map((u) => {
      const head = `${u.breaking ? '!' : '+'} ${u.kind} ${u.slug} ${u.from ?? '?'} → ${u.to ?? '?'}`;
      if (!u.compared) return `${head}: not compared (a definition is not in the registry)`;
      if (!u.breaking) return `${head}: compatible`;
      return `${head}: ${u.breaks.map((b) => `${b.action}: ${b.path} ${b.change}`).join('; ')}`;
    }),
  );
  section(lines, 'triggers', [
    ...impact.triggers.added.map((t) => `+ ${t}`),
    ...impact.triggers.removed.map((t) => `- ${t}`),
  ]);
  const fires = (list: DeployImpact['next_fires']['before']) =>
    list.flatMap((f) => f.at).join(', ') || 'none';
  if (impact.next_fires.before.length + impact.next_fires.after.length > 0) {
    lines.push(
      `  next schedule fires: before ${fires(impact.next_fires.before)}; after ${fires(impact.next_fires.after)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

function section(lines: string[], title: string, items: string[], always = false): void {
  if (items.length === 0 && !always) return;
  lines.push(`  ${title}${items.length > 0 ? ':' : ''}`);
  for (const item of items) lines.push(`    ${item}`);
}
