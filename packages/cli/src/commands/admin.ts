import type { Command } from 'commander';
import { moveLocalOwner } from '@weft/server';
import { guard } from '../command-errors.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { outputOption } from '../options.js';
import { registerBudgetAdmin } from './budgets.js';

interface MoveOwnerFlags {
  from: string;
  to: string;
  dataDir: string;
  databaseUrl?: string;
  output: string;
}

/** `weft admin move-owner`: operator tasks on the store itself (file or database access). */
export function registerAdmin(
  program: Command,
  io: Io,
  setExit: (code: number) => void,
): Command[] {
  const admin = program.command('admin');
  admin
    .command('move-owner')
    .description(
      "move everything of one owner (executions, deployments, plugins, API and signing keys, audit entries) to another, in one transaction: e.g. an identity-provider user's old oidc:<sub> into their workspace",
    )
    .requiredOption('--from <owner>', 'the owner to empty, e.g. oidc:3f2a…')
    .requiredOption('--to <owner>', 'the workspace to move into, e.g. acme')
    .option('--data-dir <dir>', 'data directory of the local store', './.weft')
    .option(
      '--database-url <url>',
      'PostgreSQL store instead of the data directory (default: DATABASE_URL)',
    )
    .addOption(outputOption())
    .addHelpText(
      'after',
      '\nRestart the servers on this store afterwards: they keep deployments in memory.\n',
    )
    .action(async (flags: MoveOwnerFlags) =>
      guard(io, setExit, async () => {
        const databaseUrl = flags.databaseUrl ?? process.env['DATABASE_URL'];
        const move = await moveLocalOwner(
          { dataDir: flags.dataDir, ...(databaseUrl ? { databaseUrl } : {}) },
          flags.from,
          flags.to,
        );
        if (flags.output === 'json') {
          io.out(`${JSON.stringify(move)}\n`);
          return EXIT.ok;
        }
        const counts = Object.entries(move.moved)
          .filter(([, n]) => n > 0)
          .map(([table, n]) => `${n} ${table.replaceAll('_', ' ')}`);
        io.out(
          counts.length === 0
            ? `nothing of ${move.from} to move\n`
            : `moved from ${move.from} to ${move.to}: ${counts.join(', ')}\n`,
        );
        return EXIT.ok;
      }),
    );
  const budgets = registerBudgetAdmin(admin, io, setExit);
  return [admin, ...admin.commands.filter((c) => !budgets.includes(c)), ...budgets];
}
