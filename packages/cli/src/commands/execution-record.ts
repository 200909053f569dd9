import type { Command } from 'commander';
import { fixtureText, recordFixture, type WorkflowDefinition } from '@weft/engine';
import { guard } from '../command-errors.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { AttemptLogs, sourceOfRecord } from '../recording.js';
import { addServerOptions, connectServer, type ServerFlags } from '../server-connection.js';
import { usage } from './execution-output.js';

/** `weft execution record <id>`: prints a completed execution as a `testing` fixture. */
export function registerExecutionRecord(
  parent: Command,
  io: Io,
  setExit: (code: number) => void,
): void {
  const record = parent
    .command('record')
    .description(
      'print a completed execution as a testing fixture (inputs, recorded answers, outputs) for weft workflow test --fixture',
    )
    .argument('<id>', 'execution id')
    .option('--name <name>', 'name of the fixture (default: recorded-<id>)');
  addServerOptions(record)
    .addHelpText(
      'after',
      '\nRedirect it to a file: weft execution record <id> > fixtures/<name>.yaml' +
        '\n\nExit status: 0 printed, 2 missing server or key, an unknown id, or an execution' +
        '\nthat has not completed (running, waiting, failed, canceled), 1 server unreachable.',
    )
    .action(async (id: string, flags: ServerFlags & { name?: string }) =>
      guard(io, setExit, async () => {
        const client = connectServer(flags, 'recording an execution');
        if (typeof client === 'string') return usage(io, client);
        const execution = await client.getExecution(id);
        if (execution.status !== 'completed') {
          const ended = ['failed', 'canceled'].includes(execution.status);
          return usage(
            io,
            `execution ${id} is ${execution.status}: ` +
              (ended
                ? 'only a completed execution can be recorded'
                : `only a finished execution can be recorded; wait for it to end (weft execution events ${id} --follow)`),
          );
        }
        const { workflow } = await client.getExecutionDefinition(id);
        const logs = new AttemptLogs();
        for await (const event of client.streamEvents(id, { follow: false })) logs.add(event);
        const source = sourceOfRecord(execution, workflow as WorkflowDefinition, logs);
        io.out(fixtureText(source, recordFixture(source, flags.name ?? `recorded-${id}`)));
        return EXIT.ok;
      }),
    );
}
