import type { Command } from 'commander';
import { guard } from '../command-errors.js';
import type { Io } from '../io.js';
import { outputOption } from '../options.js';
import { addServerOptions, connectServer, type ServerFlags } from '../server-connection.js';
import { printEnded, usage } from './execution-output.js';

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
          return printEnded(io, flags.output, await client.waitForExecution(id));
        } finally {
          await client.close();
        }
      }),
    );
}
