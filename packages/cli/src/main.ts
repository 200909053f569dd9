import { Command, CommanderError } from 'commander';
import { selectedCommand, TOP_COMMANDS, type Registrar } from './command-table.js';
import { EXIT } from './exit-codes.js';
import { processIo, type Io } from './io.js';

/** The version printed by `weft --version`. */
export const VERSION = '0.1.0';

/**
 * Builds the `weft` command tree, writing through `io`. Only the command `argv` runs is loaded
 * (the others are listed by name and description, see lazy-commands.ts), so `weft --version`
 * and `weft workflow --help` import no command module; without `argv` every command is loaded.
 */
export async function buildProgram(
  io: Io,
  setExit: (code: number) => void,
  argv?: readonly string[],
): Promise<Command> {
  const program = new Command('weft')
    .description(
      'weft: workflows in YAML, run locally or on a server, with a plugin registry and router',
    )
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(add --help for usage)');
  const selected = argv === undefined ? undefined : selectedCommand(argv);
  const loaders = TOP_COMMANDS.filter((top) => argv === undefined || top.name === selected).map(
    (top) => top.load,
  );
  const registered = new Set<Registrar>();
  for (const load of loaders) {
    const register = await load();
    if (registered.has(register)) continue;
    registered.add(register);
    await register(program, io, setExit, argv);
  }
  for (const top of TOP_COMMANDS) {
    const command =
      program.commands.find((c) => c.name() === top.name) ?? program.command(top.name);
    command.description(top.description);
  }
  configure(program, io);
  return program;
}

/** Output through `io` and errors thrown (not `process.exit`) for a command and all below it. */
function configure(command: Command, io: Io): void {
  command.exitOverride().configureOutput({ writeOut: io.out, writeErr: io.err });
  for (const child of command.commands) configure(child, io);
}

/**
 * Runs the `weft` command with `argv` (as in `process.argv`) and resolves to the exit code:
 * 0 success, 1 unexpected failure, 2 usage error or invalid input.
 */
export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  let code: number = EXIT.ok;
  const program = await buildProgram(io, (c) => (code = c), argv);
  try {
    await program.parseAsync(argv);
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version')
        return EXIT.ok;
      if (error.code === 'commander.help' || error.code === 'commander.executeSubCommandAsync')
        return EXIT.ok;
      return EXIT.invalid;
    }
    io.err(`weft: unexpected error: ${(error as Error).stack ?? String(error)}\n`);
    return EXIT.failure;
  }
}
