import type { Command } from 'commander';
import type { Io } from './io.js';

/**
 * Adds a top-level command (with its subcommands) to the program; given `argv`, it may load
 * only the subcommand that runs.
 */
export type Registrar = (
  program: Command,
  io: Io,
  setExit: (code: number) => void,
  argv?: readonly string[],
) => unknown;

/** A top-level command: what `weft --help` says of it and how to load it when it is used. */
export interface TopCommand {
  name: string;
  description: string;
  /** Imports the command's module only when the command runs (keeps start-up fast). */
  load: () => Promise<Registrar>;
}

/** Every top-level command, in the order `weft --help` lists them. */
export const TOP_COMMANDS: readonly TopCommand[] = [
  {
    name: 'init',
    description:
      'write a runnable weft project (workflow, shell plugin, TypeScript handler, fixture)',
    load: async () => (await import('./commands/init.js')).registerInit,
  },
  {
    name: 'workflow',
    description: 'validate, list, run, test and deploy workflow files',
    load: async () => (await import('./commands/workflow.js')).registerWorkflow,
  },
  {
    name: 'server',
    description: 'run the platform server: plugin registry, router, health and OpenAPI on one port',
    load: async () => (await import('./commands/server.js')).registerServer,
  },
  {
    name: 'auth',
    description: 'API keys and signing keys',
    load: async () => {
      const { registerAuth } = await import('./commands/auth.js');
      return (program, io, setExit) => registerAuth(program.command('auth'), io, setExit);
    },
  },
  {
    name: 'plugin',
    description: 'validate, publish, search, install, list and verify plugins',
    load: async () => (await import('./commands/plugin.js')).registerPlugin,
  },
  {
    name: 'approvals',
    description: 'executions on a weft server that wait for your approval',
    load: async () => (await import('./commands/approvals.js')).registerApprovals,
  },
  {
    name: 'execution',
    description:
      'find, follow and act on executions on a weft server: list, get, events, logs, wait, cancel, rerun, approve, reject, record',
    load: async () => (await import('./commands/execution.js')).registerExecution,
  },
  {
    name: 'deployment',
    description:
      'the workflows deployed on a weft server: list, get (triggers, next fires, definition), delete, run',
    load: async () => (await import('./commands/deployment.js')).registerDeployment,
  },
  {
    name: 'budgets',
    description:
      "budgets across runs of your workspace on a weft server: limits, this period's spend, period end",
    load: async () => (await import('./commands/budgets.js')).registerBudgets,
  },
  {
    name: 'sandbox',
    description:
      'check which connector runtime limits (memory, cpu, processes...) this host enforces',
    load: async () => (await import('./commands/sandbox.js')).registerSandbox,
  },
  {
    name: 'admin',
    description:
      "operator tasks: move-owner (carry one owner's data into a workspace) on the local store; budget set|get|delete (workspace budgets) on a server",
    load: async () => (await import('./commands/admin.js')).registerAdmin,
  },
];

/**
 * The top-level command `argv` (as in `process.argv`) runs: its first word that is not an option,
 * or the one after `help`; undefined for `weft`, `weft --help`, `weft --version`.
 */
export function selectedCommand(argv: readonly string[]): string | undefined {
  const words = argv.slice(2).filter((word) => !word.startsWith('-'));
  return words[0] === 'help' ? words[1] : words[0];
}
