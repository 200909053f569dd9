import { Command, CommanderError } from 'commander';
import { registerWorkflowList } from './commands/workflow-list.js';
import { registerWorkflowRun } from './commands/workflow-run.js';
import { registerWorkflowDeploy } from './commands/workflow-deploy.js';
import { registerWorkflowTest } from './commands/workflow-test.js';
import { registerWorkflowValidate } from './commands/workflow-validate.js';
import { registerRegistryCommands } from './commands/registry-commands.js';
import { registerApprovals } from './commands/approvals.js';
import { registerExecution } from './commands/execution.js';
import { EXIT } from './exit-codes.js';
import { processIo, type Io } from './io.js';

/** The version printed by `weft --version`. */
export const VERSION = '0.1.0';

/** Builds the `weft` command tree, writing through `io`. */
export function buildProgram(io: Io, setExit: (code: number) => void): Command {
  const program = new Command('weft')
    .description(
      'weft: workflows in YAML, run locally or on a server, with a plugin registry and router',
    )
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .exitOverride();
  const workflow = program
    .command('workflow')
    .description('validate, list, run, test and deploy workflow files')
    .exitOverride();
  registerWorkflowValidate(workflow, io, setExit);
  registerWorkflowList(workflow, io, setExit);
  registerWorkflowRun(workflow, io, setExit);
  registerWorkflowTest(workflow, io, setExit);
  registerWorkflowDeploy(workflow, io, setExit);
  const registryCommands = registerRegistryCommands(program, io, setExit);
  const serverCommands = [
    ...registerApprovals(program, io, setExit),
    ...registerExecution(program, io, setExit),
  ];
  for (const command of [
    program,
    ...program.commands,
    ...workflow.commands,
    ...registryCommands,
    ...serverCommands,
  ]) {
    command.exitOverride().configureOutput({ writeOut: io.out, writeErr: io.err });
  }
  return program;
}

/**
 * Runs the `weft` command with `argv` (as in `process.argv`) and resolves to the exit code:
 * 0 success, 1 unexpected failure, 2 usage error or invalid input.
 */
export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  let code: number = EXIT.ok;
  const program = buildProgram(io, (c) => (code = c));
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
