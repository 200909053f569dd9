import type { Command } from 'commander';
import type { ExecutionEvent } from '@weft/sdk/client';
import { guard } from '../command-errors.js';
import { EXIT } from '../exit-codes.js';
import { followExecution } from '../follow-execution.js';
import type { Io } from '../io.js';
import { addServerOptions, connectServer, type ServerFlags } from '../server-connection.js';
import { errorText, formatDuration } from '../step-list.js';
import { usage } from './execution-output.js';

interface EventsFlags extends ServerFlags {
  follow?: boolean;
  after?: string;
}

const FOLLOW_EXIT =
  'Exit status: 0 shown (with --follow: the execution completed), 1 with --follow it failed or ' +
  'was canceled, or the server is unreachable, 2 missing server or key, or refused by the server (unknown id).';

/** `weft execution events <id>` and `weft execution logs <id>`. */
export function registerExecutionEvents(
  parent: Command,
  io: Io,
  setExit: (code: number) => void,
): void {
  const events = parent
    .command('events')
    .description(
      'print the events of an execution as JSON lines; --follow: until it ends, as a live step list on a terminal',
    )
    .argument('<id>', 'execution id')
    .option('-f, --follow', 'keep printing new events until the execution ends')
    .option('--after <event-id>', 'resume after this event id (the `id` of a line printed before)');
  addServerOptions(events)
    .addHelpText('after', `\n${FOLLOW_EXIT}`)
    .action(async (id: string, flags: EventsFlags) =>
      guard(io, setExit, async () => {
        const client = connectServer(flags, 'reading the events of an execution');
        if (typeof client === 'string') return usage(io, client);
        const follow = flags.follow ?? false;
        // Without --follow the lines are for programs: JSON lines even on a terminal.
        const status = await followExecution(follow ? io : { ...io, live: false }, client, id, {
          follow,
          ...(flags.after !== undefined ? { after: flags.after } : {}),
        });
        return !follow || status === 'completed' ? EXIT.ok : EXIT.failure;
      }),
    );

  const logs = parent
    .command('logs')
    .description(
      'print what an execution did as log lines: steps started and ended, progress, errors',
    )
    .argument('<id>', 'execution id')
    .option('-f, --follow', 'keep printing until the execution ends')
    .option('--after <event-id>', 'resume after this event id');
  addServerOptions(logs)
    .addHelpText('after', `\n${FOLLOW_EXIT}`)
    .action(async (id: string, flags: EventsFlags) =>
      guard(io, setExit, async () => {
        const client = connectServer(flags, 'reading the log of an execution');
        if (typeof client === 'string') return usage(io, client);
        const follow = flags.follow ?? false;
        let status: string | undefined;
        for await (const event of client.streamEvents(id, {
          follow,
          ...(flags.after !== undefined ? { lastEventId: flags.after } : {}),
        })) {
          io.out(logLine(event));
          if (event.type === 'workflow.completed') status = String(event.data['status'] ?? '');
        }
        if (follow && status === undefined) status = (await client.getExecution(id)).status;
        return !follow || status === 'completed' ? EXIT.ok : EXIT.failure;
      }),
    );
}

/** `<time>  <step>  <what happened>` for one event. */
export function logLine(event: ExecutionEvent): string {
  const data = event.data;
  const step = event.step_name === '' ? '-' : event.step_name;
  let what: string;
  switch (event.type) {
    case 'step.started':
      what = 'started';
      break;
    case 'step.progress':
      what = [
        typeof data['percent'] === 'number' ? `${data['percent']}%` : '',
        typeof data['message'] === 'string' ? data['message'] : '',
      ]
        .filter((part) => part !== '')
        .join(' ');
      what = `progress ${what}`.trimEnd();
      break;
    case 'step.completed':
    case 'step.failed':
      what = [
        event.type === 'step.failed'
          ? 'failed'
          : data['status'] === 'skipped'
            ? 'skipped'
            : 'completed',
        typeof data['duration_ms'] === 'number' ? `in ${formatDuration(data['duration_ms'])}` : '',
        typeof data['attempts'] === 'number' && data['attempts'] > 1
          ? `after ${data['attempts']} attempts`
          : '',
        data['error'] !== undefined ? `: ${errorText(data['error'])}` : '',
      ]
        .filter((part) => part !== '')
        .join(' ')
        .replace(' :', ':');
      break;
    case 'workflow.completed':
      what = `workflow ${String(data['status'] ?? 'ended')}${
        typeof data['duration_ms'] === 'number' ? ` in ${formatDuration(data['duration_ms'])}` : ''
      }${data['error'] !== undefined ? `: ${errorText(data['error'])}` : ''}`;
      break;
    default:
      what = event.type.replace('.', ' ');
  }
  return `${event.timestamp}  ${step}  ${what}\n`;
}
