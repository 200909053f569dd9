import type { Command } from 'commander';
import type { DeployedWorkflowDetail, DeployedWorkflowSummary } from '@weft/core';
import { toYaml } from '@weft/engine';
import { guard } from '../command-errors.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { addServerOptions, connectServer, type ServerFlags } from '../server-connection.js';
import { formatTable } from '../table.js';
import { registerDeploymentActions } from './deployment-actions.js';
import { usage } from './execution-output.js';

interface ListFlags extends ServerFlags {
  json?: boolean;
}

interface GetFlags extends ServerFlags {
  json?: boolean;
  yaml?: boolean;
}

/** The exit status line of the read commands' help. */
const READ_EXIT =
  'Exit status: 0 shown, 2 missing server or key, or refused by the server (unknown name), 1 server unreachable.';

/**
 * `weft deployment list | get | delete | run`: the workflows deployed on a weft server (`GET
 * /workflows`, `GET`/`DELETE /workflows/{name}`, `POST /workflows/{name}/executions`), with
 * `--server` and `--api-key` as the other server commands. Returns every command added.
 */
export function registerDeployment(
  program: Command,
  io: Io,
  setExit: (code: number) => void,
): Command[] {
  const deployment = program
    .command('deployment')
    .description('the workflows deployed on a weft server: list, get, delete, run');

  const list = deployment
    .command('list')
    .description(
      'list the deployed workflows your key may see: name, revision, version, triggers, last deployed',
    )
    .option('--json', 'print the server’s answer as JSON');
  addServerOptions(list)
    .addHelpText('after', `\n${READ_EXIT}`)
    .action(async (flags: ListFlags) =>
      guard(io, setExit, async () => {
        const client = connectServer(flags, 'listing deployments');
        if (typeof client === 'string') return usage(io, client);
        const answer = await client.listDeployments();
        if (flags.json) {
          io.out(`${JSON.stringify(answer, null, 2)}\n`);
          return EXIT.ok;
        }
        if (answer.workflows.length === 0) {
          io.err('no deployed workflows (deploy one with `weft workflow deploy <file>`)\n');
          return EXIT.ok;
        }
        io.out(
          formatTable(
            ['NAME', 'REVISION', 'VERSION', 'TRIGGERS', 'UPDATED'],
            answer.workflows.map((w) => [
              w.name,
              String(w.revision),
              w.version,
              triggersText(w),
              time(w.deployed_at),
            ]),
          ),
        );
        return EXIT.ok;
      }),
    );

  const get = deployment
    .command('get')
    .description(
      'show a deployed workflow: revision, triggers with their next fire times, webhooks, plugins, revisions',
    )
    .argument('<name>', 'workflow name')
    .option('--json', 'print the server’s answer as JSON (summary, definition and revisions)')
    .option(
      '--yaml',
      'print only the deployed definition, as YAML (what `weft workflow deploy` sent)',
    );
  addServerOptions(get)
    .addHelpText('after', `\n${READ_EXIT}`)
    .action(async (name: string, flags: GetFlags) =>
      guard(io, setExit, async () => {
        if (flags.json && flags.yaml) return usage(io, '--json and --yaml go alone: give one');
        const client = connectServer(flags, 'reading a deployment');
        if (typeof client === 'string') return usage(io, client);
        const detail = await client.getDeployment(name);
        if (flags.json) io.out(`${JSON.stringify(detail, null, 2)}\n`);
        else if (flags.yaml) io.out(toYaml(detail.definition));
        else io.out(describeDeployment(detail));
        return EXIT.ok;
      }),
    );

  registerDeploymentActions(deployment, io, setExit);
  return [deployment, ...deployment.commands];
}

/** The trigger types, each once, in their order (`manual` when there is none). */
function triggersText(summary: DeployedWorkflowSummary): string {
  const kinds = [...new Set(summary.triggers)];
  return kinds.length === 0 ? 'manual' : kinds.join(',');
}

/** `weft deployment get <name>` for people: the summary, then triggers, webhooks, plugins. */
export function describeDeployment(detail: DeployedWorkflowDetail): string {
  const definition = detail.definition;
  const lines = [
    `name:        ${detail.name}`,
    `owner:       ${detail.owner}`,
    `version:     ${detail.version}`,
    `revision:    ${detail.revision} (${detail.revisions.length} in all)`,
    `deployed:    ${time(detail.deployed_at)}${detail.deployed_by ? ` by ${detail.deployed_by}` : ''}`,
    `source:      ${detail.source}`,
  ];
  if (typeof definition['description'] === 'string')
    lines.push(`description: ${definition['description']}`);
  const steps = Array.isArray(definition['steps']) ? definition['steps'].length : 0;
  const inputs = Object.keys((definition['inputs'] as Record<string, unknown> | undefined) ?? {});
  lines.push(`steps:       ${steps}`);
  lines.push(`inputs:      ${inputs.length > 0 ? inputs.join(', ') : '-'}`);
  lines.push('triggers:');
  if (detail.triggers.length === 0) lines.push('  manual only (weft deployment run)');
  detail.triggers.forEach((kind, index) => {
    const fires = detail.next_fires.find((f) => f.trigger === index);
    if (fires) {
      const next = fires.at.length > 0 ? fires.at.map(time).join(', ') : 'none (schedule ended)';
      lines.push(`  ${kind} ${fires.cron} (${fires.timezone}): next ${next}`);
    } else lines.push(`  ${kind}`);
  });
  if (detail.webhooks.length > 0) lines.push(`webhooks:    ${detail.webhooks.join(', ')}`);
  if (detail.plugins.length > 0)
    lines.push(
      `plugins:     ${detail.plugins.map((p) => `${p.slug}@${p.version ?? 'latest'}`).join(', ')}`,
    );
  if (detail.revisions.length > 1) {
    lines.push('revisions:');
    for (const r of detail.revisions.slice(0, REVISIONS_SHOWN))
      lines.push(`  ${r.revision}  ${r.version}  ${time(r.deployed_at)}  ${r.source}`);
    const more = detail.revisions.length - REVISIONS_SHOWN;
    if (more > 0) lines.push(`  ... ${more} earlier (--json lists them all)`);
  }
  return `${lines.join('\n')}\n`;
}

/** Revisions `weft deployment get` lists, newest first. */
const REVISIONS_SHOWN = 5;

/** An ISO time to the second, in UTC: `2026-03-01 12:00:00Z`. */
function time(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : at.toISOString().replace('T', ' ').slice(0, 19) + 'Z';
}
