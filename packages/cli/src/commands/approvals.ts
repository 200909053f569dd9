import { InvalidArgumentError, type Command } from 'commander';
import type { ExecutionRecord } from '@weft/sdk/client';
import { guard } from '../command-errors.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { outputOption } from '../options.js';
import { addServerOptions, connectServer, type ServerFlags } from '../server-connection.js';
import { formatTable } from '../table.js';
import { inputsText, waitsFor } from './execution-list.js';

interface ListFlags extends ServerFlags {
  limit: number;
  cursor?: string;
  output: string;
}

/**
 * `weft approvals list`: the executions on the server that wait for an approval the key may
 * give (`GET /approvals`), newest first, as a table or (`-o json`) the page the server answered.
 * Returns the commands it added.
 */
export function registerApprovals(
  program: Command,
  io: Io,
  setExit: (code: number) => void,
): Command[] {
  const approvals = program.command('approvals');
  const list = approvals
    .command('list')
    .description('list the executions waiting for an approval your key may give, newest first')
    .option('--limit <n>', 'page size, 1 to 100', parseLimit, 20)
    .option('--cursor <cursor>', 'continue after the page that printed it');
  addServerOptions(list)
    .addOption(outputOption())
    .addHelpText(
      'after',
      '\nDecide one with `weft execution approve <id>` or `weft execution reject <id>`.\n' +
        'Exit status: 0 listed, 2 missing server or key, or refused by the server, 1 server unreachable.',
    )
    .action(async (flags: ListFlags) =>
      guard(io, setExit, async () => {
        const client = connectServer(flags, 'listing approvals');
        if (typeof client === 'string') {
          io.err(`error: ${client}\n`);
          return EXIT.invalid;
        }
        const page = await client.listApprovals({
          limit: flags.limit,
          ...(flags.cursor !== undefined ? { cursor: flags.cursor } : {}),
        });
        if (flags.output === 'json') {
          io.out(`${JSON.stringify(page, null, 2)}\n`);
          return EXIT.ok;
        }
        if (page.executions.length === 0) io.err('no executions wait for your approval\n');
        else
          io.out(
            formatTable(
              ['EXECUTION', 'WORKFLOW', 'WAITS FOR', 'REQUESTED BY', 'SINCE', 'EXPIRES', 'INPUTS'],
              page.executions.map(row),
            ),
          );
        if (page.next_cursor !== null)
          io.err(`more: weft approvals list --cursor ${page.next_cursor}\n`);
        return EXIT.ok;
      }),
    );
  return [approvals, list];
}

/** A table row: id, workflow, who started it, when it began to wait, its deadline. */
function row(execution: ExecutionRecord): string[] {
  const waiting = execution.waiting_for;
  const by = (waiting as { requested_by?: { subject?: string; name?: string } } | undefined)
    ?.requested_by;
  return [
    execution.execution_id,
    execution.workflow,
    waitsFor(waiting),
    by?.name ?? by?.subject ?? '-',
    time(waiting?.since),
    waiting?.expires_at ? time(waiting.expires_at) : 'never',
    inputsText(execution.inputs) ?? '-',
  ];
}

/** An ISO time to the second, in UTC: `2026-03-01 12:00:00Z`. */
function time(iso: string | undefined): string {
  if (iso === undefined) return '-';
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : at.toISOString().replace('T', ' ').slice(0, 19) + 'Z';
}

function parseLimit(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 100)
    throw new InvalidArgumentError('expected a whole number from 1 to 100');
  return n;
}
