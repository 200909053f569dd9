import { InvalidArgumentError, type Command } from 'commander';
import { guard } from '../command-errors.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { outputOption } from '../options.js';
import { addServerOptions, connectServer, type ServerFlags } from '../server-connection.js';
import { printEnded, printRecord } from './execution-output.js';

interface DecideFlags extends ServerFlags {
  comment?: string;
  arguments?: Record<string, unknown>;
  wait?: boolean;
  output: string;
}

type Verdict = 'approve' | 'reject';

const DONE: Record<Verdict, string> = { approve: 'approved', reject: 'rejected' };

/**
 * `weft execution approve <id>` and `weft execution reject <id>` (`--comment`): decide an
 * execution that waits for approval, and print its status after the decision (`pending` once
 * approved, `canceled` once rejected; with `--wait`, the status it ends with).
 */
export function registerExecutionDecisions(
  parent: Command,
  io: Io,
  setExit: (code: number) => void,
): void {
  for (const verdict of ['approve', 'reject'] as const) {
    const command = parent
      .command(verdict)
      .description(
        verdict === 'approve'
          ? 'approve an execution waiting for approval: it runs on'
          : 'reject an execution waiting for approval: it ends canceled',
      )
      .argument('<id>', 'execution id (from `weft approvals list`)')
      .option('--comment <text>', 'why (kept with the decision and in the audit log)');
    if (verdict === 'approve')
      command
        .option('--wait', 'wait until the approved execution ends and print how it ended')
        .option(
          '--arguments <json>',
          "a tool call's approval: the arguments (a JSON object) the tool runs with instead of the model's",
          parseArguments,
        );
    addServerOptions(command)
      .addOption(outputOption())
      .addHelpText(
        'after',
        `\nExit status: 0 ${DONE[verdict]}${verdict === 'approve' ? ' (with --wait: and completed; 1 if it failed)' : ''}, ` +
          '2 missing server or key, or refused by the server (not an approver, your own run, ' +
          'decided already, unknown id), 1 server unreachable.',
      )
      .action(async (id: string, flags: DecideFlags) =>
        guard(io, setExit, async () => {
          const client = connectServer(
            flags,
            `${verdict === 'approve' ? 'approving' : 'rejecting'} an execution`,
          );
          if (typeof client === 'string') {
            io.err(`error: ${client}\n`);
            return EXIT.invalid;
          }
          const options = {
            ...(flags.comment !== undefined ? { comment: flags.comment } : {}),
            ...(flags.arguments !== undefined ? { arguments: flags.arguments } : {}),
          };
          const decided =
            verdict === 'approve'
              ? await client.approveExecution(id, options)
              : await client.rejectExecution(id, options);
          if (!flags.wait) {
            printRecord(
              io,
              flags.output,
              decided,
              `execution ${id} ${DONE[verdict]}: ${decided.status}`,
            );
            return EXIT.ok;
          }
          io.err(`execution ${id} ${DONE[verdict]}: ${decided.status}; waiting for it to end\n`);
          // An approver decides its own owner's runs only, which it may read.
          return printEnded(io, flags.output, await client.waitForExecution(id));
        }),
      );
  }
}

/** `--arguments`: a JSON object. */
function parseArguments(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError('expected a JSON object, e.g. \'{"amount": 5}\'');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new InvalidArgumentError('expected a JSON object, e.g. \'{"amount": 5}\'');
  return parsed as Record<string, unknown>;
}
