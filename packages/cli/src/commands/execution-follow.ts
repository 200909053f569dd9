import type { Command } from 'commander';
import type { ExecutionRecord } from '@weft/sdk/client';
import { guard } from '../command-errors.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { outputOption } from '../options.js';
import { addServerOptions, connectServer, type ServerFlags } from '../server-connection.js';

interface FollowFlags extends ServerFlags {
  output: string;
}

/**
 * `weft execution wait <id>`: waits until an execution of the server ends and prints how it
 * ended. With `weft execution cancel <id>` (execution-control.ts), the commands `weft workflow
 * run --cloud` names when it is interrupted.
 */
export function registerExecutionFollow(
  parent: Command,
  io: Io,
  setExit: (code: number) => void,
): void {
  const wait = parent
    .command('wait')
    .description('wait until an execution on the server ends and print how it ended')
    .argument('<id>', 'execution id');
  addServerOptions(wait)
    .addOption(outputOption())
    .addHelpText(
      'after',
      '\nExit status: 0 completed, 1 failed or canceled (or server unreachable), 2 missing server or key, unknown id.',
    )
    .action(async (id: string, flags: FollowFlags) =>
      guard(io, setExit, async () => {
        const client = connectServer(flags, 'waiting for an execution');
        if (typeof client === 'string') return usage(io, client);
        try {
          return printEnd(io, flags, await client.waitForExecution(id));
        } finally {
          await client.close();
        }
      }),
    );
}

/** Prints an ended record; exit 0 when it completed, 1 otherwise. */
function printEnd(io: Io, flags: FollowFlags, record: ExecutionRecord): number {
  const error = record.error as { code?: string; message?: string } | undefined;
  const why = error ? ` (${error.code ?? 'ERROR'}: ${error.message ?? ''})` : '';
  const outputs = record.result?.outputs ?? {};
  const shown = Object.keys(outputs).length > 0 ? `\noutputs: ${JSON.stringify(outputs)}` : '';
  print(io, flags, record, `execution ${record.execution_id} ${record.status}${why}${shown}`);
  return record.status === 'completed' ? EXIT.ok : EXIT.failure;
}

function print(io: Io, flags: FollowFlags, record: ExecutionRecord, line: string): void {
  io.out(flags.output === 'json' ? `${JSON.stringify(record, null, 2)}\n` : `${line}\n`);
}

function usage(io: Io, message: string): number {
  io.err(`error: ${message}\n`);
  return EXIT.invalid;
}
