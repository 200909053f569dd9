import type { Command } from 'commander';
import { guard } from '../command-errors.js';
import { EXIT } from '../exit-codes.js';
import { followExecution } from '../follow-execution.js';
import type { Io } from '../io.js';
import { outputOption } from '../options.js';
import { addServerOptions, connectServer, type ServerFlags } from '../server-connection.js';
import { printRecord, usage } from './execution-output.js';

interface ControlFlags extends ServerFlags {
  output: string;
  follow?: boolean;
  from?: string;
}

/** `weft execution cancel <id>` and `weft execution rerun <id>`. */
export function registerExecutionControl(
  parent: Command,
  io: Io,
  setExit: (code: number) => void,
): void {
  const cancel = parent
    .command('cancel')
    .description('cancel a pending, waiting or running execution: it ends canceled')
    .argument('<id>', 'execution id');
  addServerOptions(cancel)
    .addOption(outputOption())
    .addHelpText(
      'after',
      '\nExit status: 0 canceled, 2 missing server or key, or refused by the server (unknown id, ' +
        'already completed or failed), 1 server unreachable.',
    )
    .action(async (id: string, flags: ControlFlags) =>
      guard(io, setExit, async () => {
        const client = connectServer(flags, 'canceling an execution');
        if (typeof client === 'string') return usage(io, client);
        const record = await client.cancelExecution(id);
        printRecord(
          io,
          flags.output,
          record,
          `execution ${id} canceled at ${record.canceled_at ?? record.finished_at ?? ''}`,
        );
        return EXIT.ok;
      }),
    );

  const rerun = parent
    .command('rerun')
    .description(
      'start the same workflow revision again with the same inputs: a new execution, checked like any start',
    )
    .argument('<id>', 'execution id')
    .option(
      '-f, --follow',
      'follow the new execution until it ends (a live step list on a terminal)',
    )
    .option(
      '--from <step|failed>',
      'resume from this top-level step, or from the step the original failed at: the steps before it are taken from the original, not run again',
    );
  addServerOptions(rerun)
    .addOption(outputOption())
    .addHelpText(
      'after',
      '\nExit status: 0 started (with --follow: completed), 1 with --follow it failed or was canceled, ' +
        'or the server is unreachable, 2 missing server or key, or refused by the server (unknown id, not allowed, ' +
        'a --from step that is unknown, inside a parallel block, or after the step that failed).',
    )
    .action(async (id: string, flags: ControlFlags) =>
      guard(io, setExit, async () => {
        const client = connectServer(flags, 'rerunning an execution');
        if (typeof client === 'string') return usage(io, client);
        const record = await client.rerunExecution(
          id,
          flags.from !== undefined ? { from: flags.from } : {},
        );
        if (!flags.follow) {
          printRecord(io, flags.output, record, record.execution_id);
          return EXIT.ok;
        }
        const resumed = record.resumed_from
          ? `, resumed from step ${record.resumed_from.step}`
          : '';
        io.err(`execution ${record.execution_id} started (a rerun of ${id}${resumed})\n`);
        const status = await followExecution(io, client, record.execution_id);
        return status === 'completed' ? EXIT.ok : EXIT.failure;
      }),
    );
}
