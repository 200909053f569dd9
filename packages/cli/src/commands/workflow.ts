import type { Command } from 'commander';
import type { Io } from '../io.js';
import { registerLazy, type LazySubcommand } from '../lazy-commands.js';

/** The subcommands of `weft workflow`, in the order its help lists them. */
export const WORKFLOW_SUBCOMMANDS: readonly LazySubcommand[] = [
  {
    name: 'validate',
    term: 'validate [options] <files...>',
    description: 'check workflow files (YAML or JSON) and report every error with its place',
    load: async () => (await import('./workflow-validate.js')).registerWorkflowValidate,
  },
  {
    name: 'list',
    term: 'list [options] <files...>',
    description: 'list the workflows of files: name, version, triggers, step count, description',
    load: async () => (await import('./workflow-list.js')).registerWorkflowList,
  },
  {
    name: 'run',
    term: 'run [options] <file>',
    description:
      'run workflows of a file locally, with connectors from ./plugins and handlers from --require',
    load: async () => (await import('./workflow-run.js')).registerWorkflowRun,
  },
  {
    name: 'test',
    term: 'test [options] <file>',
    description: "run testing.fixtures and compare each one's expectedOutputs with the outputs",
    load: async () => (await import('./workflow-test.js')).registerWorkflowTest,
  },
  {
    name: 'lock',
    term: 'lock [options] [files...]',
    description:
      'write weft.lock: the version and SHA-256 checksum of every plugin, agent and subworkflow the workflows reference',
    load: async () => (await import('./workflow-lock.js')).registerWorkflowLock,
  },
  {
    name: 'deploy',
    term: 'deploy [options] <file>',
    description: 'deploy the workflows of a file to a weft server, where their triggers run',
    load: async () => (await import('./workflow-deploy.js')).registerWorkflowDeploy,
  },
];

/**
 * `weft workflow ...`: validate, list, run, test, lock and deploy workflow files. Only the subcommand
 * `argv` runs is loaded (all of them without `argv`).
 */
export async function registerWorkflow(
  program: Command,
  io: Io,
  setExit: (code: number) => void,
  argv?: readonly string[],
): Promise<void> {
  const workflow = program.command('workflow');
  await registerLazy(workflow, WORKFLOW_SUBCOMMANDS, io, setExit, argv);
}
