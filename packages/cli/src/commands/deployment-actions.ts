import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { fromYaml, isPlainObject } from '@weft/engine';
import { guard } from '../command-errors.js';
import { EXIT } from '../exit-codes.js';
import { followExecution } from '../follow-execution.js';
import type { Io } from '../io.js';
import { addServerOptions, connectServer, type ServerFlags } from '../server-connection.js';
import { usage } from './execution-output.js';
import { collectInput } from './run-support.js';

interface DeleteFlags extends ServerFlags {
  yes?: boolean;
}

interface RunFlags extends ServerFlags {
  input: Record<string, unknown>;
  inputFile?: string;
  follow?: boolean;
  json?: boolean;
}

/** Largest `--input-file` read. */
const MAX_INPUT_FILE = 1024 * 1024;

/** `weft deployment delete <name>` and `weft deployment run <name>`. */
export function registerDeploymentActions(
  parent: Command,
  io: Io,
  setExit: (code: number) => void,
): void {
  const remove = parent
    .command('delete')
    .description(
      'undeploy a workflow: its triggers stop; its executions and their history are kept',
    )
    .argument('<name>', 'workflow name')
    .option('-y, --yes', 'do not ask for confirmation (required when stdin is not a terminal)');
  addServerOptions(remove)
    .addHelpText(
      'after',
      '\nExit status: 0 undeployed, 1 not confirmed or server unreachable, 2 missing server, key\n' +
        'or --yes, or refused by the server (unknown name, not allowed).',
    )
    .action(async (name: string, flags: DeleteFlags) =>
      guard(io, setExit, async () => {
        const client = connectServer(flags, 'undeploying a workflow');
        if (typeof client === 'string') return usage(io, client);
        if (!flags.yes) {
          if (!io.ask)
            return usage(
              io,
              `not undeploying ${name}: stdin is not a terminal to confirm on; add --yes`,
            );
          const answer = await io.ask(
            `undeploy ${name}? Its triggers stop (history is kept) [y/N] `,
            new AbortController().signal,
          );
          if (!/^y(es)?$/i.test(answer.trim())) {
            io.err(`not undeployed: ${name}\n`);
            return EXIT.failure;
          }
        }
        await client.api.call('DELETE', `/workflows/${encodeURIComponent(name)}`);
        io.out(`undeployed ${name}\n`);
        return EXIT.ok;
      }),
    );

  const run = parent
    .command('run')
    .description(
      'start a deployed workflow by hand and print the execution id; --follow: watch it until it ends',
    )
    .argument('<name>', 'workflow name')
    .option(
      '-i, --input <key=value>',
      'an input (JSON values are parsed); repeatable; wins over --input-file',
      collectInput,
      {},
    )
    .option('--input-file <file>', 'the inputs as a JSON or YAML object')
    .option(
      '-f, --follow',
      'print its progress until it ends (a live step list on a terminal, else JSON lines) and exit with its outcome',
    )
    .option('--json', 'print the pending execution record as JSON instead of the id');
  addServerOptions(run)
    .addHelpText(
      'after',
      '\nExit status: 0 started (with --follow: completed), 1 with --follow failed or canceled,\n' +
        'or server unreachable, 2 missing server or key, bad inputs, or refused by the server\n' +
        '(unknown name, invalid inputs, not allowed).',
    )
    .action(async (name: string, flags: RunFlags) =>
      guard(io, setExit, async () => {
        const client = connectServer(flags, 'running a deployment');
        if (typeof client === 'string') return usage(io, client);
        let inputs = flags.input;
        if (flags.inputFile !== undefined) {
          const fromFile = await readInputs(flags.inputFile);
          if (typeof fromFile === 'string') return usage(io, fromFile);
          inputs = { ...fromFile, ...flags.input };
        }
        try {
          const record = await client.startDeployment(name, inputs);
          const id = record.execution_id;
          if (!flags.follow) {
            io.out(flags.json ? `${JSON.stringify(record, null, 2)}\n` : `${id}\n`);
            if (!flags.json) io.err(`follow it: weft execution events ${id} --follow\n`);
            return EXIT.ok;
          }
          io.err(`execution ${id}\n`);
          const status = await followExecution(io, client, id);
          if (!io.live) io.err(`execution ${id} ${status ?? 'ended'}\n`);
          return status === 'completed' ? EXIT.ok : EXIT.failure;
        } finally {
          await client.close();
        }
      }),
    );
}

/** The object of an `--input-file`, or the usage error saying why not. */
async function readInputs(file: string): Promise<Record<string, unknown> | string> {
  let text: string;
  try {
    const bytes = await readFile(file);
    if (bytes.length > MAX_INPUT_FILE) return `--input-file ${file}: over 1 MiB`;
    text = bytes.toString('utf8');
  } catch (error) {
    return `--input-file ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`;
  }
  let value: unknown;
  try {
    value = fromYaml(text);
  } catch (error) {
    return `--input-file ${file}: ${(error as Error).message.split('\n')[0]}`;
  }
  if (!isPlainObject(value))
    return `--input-file ${file}: expected an object of inputs (key: value)`;
  return value;
}
