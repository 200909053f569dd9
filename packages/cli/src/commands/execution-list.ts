import { InvalidArgumentError, Option, type Command } from 'commander';
import type { ExecutionRecord, ExecutionStatus } from '@weft/sdk/client';
import { guard } from '../command-errors.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { outputOption } from '../options.js';
import { addServerOptions, connectServer, type ServerFlags } from '../server-connection.js';
import { errorText, formatDuration, StepList } from '../step-list.js';
import { formatTable } from '../table.js';
import { usage } from './execution-output.js';

interface ListFlags extends ServerFlags {
  status?: ExecutionStatus;
  workflow?: string;
  limit: number;
  cursor?: string;
  output: string;
}

const STATUSES = ['pending', 'waiting', 'running', 'completed', 'failed', 'canceled'];
const EXIT_HELP =
  'Exit status: 0 shown, 2 missing server or key, or refused by the server (unknown id), 1 server unreachable.';

/** `weft execution list` and `weft execution get <id>`. */
export function registerExecutionReads(
  parent: Command,
  io: Io,
  setExit: (code: number) => void,
): void {
  const list = parent
    .command('list')
    .description("list the key owner's executions on the server, newest first")
    .addOption(new Option('--status <status>', 'only executions in this status').choices(STATUSES))
    .option('--workflow <name>', 'only executions of this workflow')
    .option('--limit <n>', 'page size, 1 to 100', parseLimit, 20)
    .option('--cursor <cursor>', 'continue after the page that printed it');
  addServerOptions(list)
    .addOption(outputOption())
    .addHelpText('after', `\n${EXIT_HELP}`)
    .action(async (flags: ListFlags) =>
      guard(io, setExit, async () => {
        const client = connectServer(flags, 'listing executions');
        if (typeof client === 'string') return usage(io, client);
        const page = await client.listExecutions({
          limit: flags.limit,
          ...(flags.status !== undefined ? { status: flags.status } : {}),
          ...(flags.workflow !== undefined ? { workflow: flags.workflow } : {}),
          ...(flags.cursor !== undefined ? { cursor: flags.cursor } : {}),
        });
        if (flags.output === 'json') {
          io.out(`${JSON.stringify(page, null, 2)}\n`);
          return EXIT.ok;
        }
        if (page.executions.length === 0) io.err('no executions match\n');
        else
          io.out(
            formatTable(
              ['EXECUTION', 'WORKFLOW', 'STATUS', 'TRIGGER', 'CREATED', 'DURATION'],
              page.executions.map(listRow),
            ),
          );
        if (page.next_cursor !== null)
          io.err(`more: weft execution list --cursor ${page.next_cursor}\n`);
        return EXIT.ok;
      }),
    );

  const get = parent
    .command('get')
    .description('show an execution: status, steps with status, attempts and duration, errors')
    .argument('<id>', 'execution id');
  addServerOptions(get)
    .addOption(outputOption())
    .addHelpText('after', `\n${EXIT_HELP}`)
    .action(async (id: string, flags: ServerFlags & { output: string }) =>
      guard(io, setExit, async () => {
        const client = connectServer(flags, 'reading an execution');
        if (typeof client === 'string') return usage(io, client);
        const record = await client.getExecution(id);
        if (flags.output === 'json') {
          io.out(`${JSON.stringify(record, null, 2)}\n`);
          return EXIT.ok;
        }
        io.out(describe(record));
        if (record.result) io.out(stepTable(record.result.steps));
        else {
          // Not ended: its steps so far, from the events stored until now.
          const list = new StepList();
          for await (const event of client.streamEvents(id, { follow: false })) list.apply(event);
          const lines = list.lines(Date.now(), 0);
          if (lines.length > 0) io.out(`steps so far:\n${lines.map((l) => `  ${l}\n`).join('')}`);
        }
        return EXIT.ok;
      }),
    );
}

function listRow(record: ExecutionRecord): string[] {
  return [
    record.execution_id,
    record.workflow,
    record.status,
    record.trigger,
    record.created_at,
    durationOf(record),
  ];
}

/** The header of `get`: one `field: value` line each. */
function describe(record: ExecutionRecord): string {
  const lines: [string, string | undefined][] = [
    ['execution', record.execution_id],
    [
      'workflow',
      `${record.workflow}${record.workflow_version ? ` ${record.workflow_version}` : ''}`,
    ],
    ['status', record.status],
    ['trigger', record.trigger],
    ['inputs', inputsText(record.inputs)],
    ['created', record.created_at],
    ['started', record.started_at ?? undefined],
    ['finished', record.finished_at ?? undefined],
    ['duration', durationOf(record)],
    [
      'waiting for',
      record.waiting_for
        ? record.waiting_for.kind === 'tool_call'
          ? `tool call ${waitsFor(record.waiting_for)} (approvers: ${(record.waiting_for as { approvers?: string[] }).approvers?.join(', ') ?? '-'}; expires ${record.waiting_for.expires_at ?? 'never'})`
          : record.waiting_for.kind
        : undefined,
    ],
    ['error', record.error ? errorText(record.error) : undefined],
  ];
  const outputs = record.result?.outputs;
  if (outputs && Object.keys(outputs).length > 0) lines.push(['outputs', JSON.stringify(outputs)]);
  return lines
    .filter((line): line is [string, string] => line[1] !== undefined && line[1] !== '-')
    .map(([field, value]) => `${`${field}:`.padEnd(13)}${value}\n`)
    .join('');
}

/**
 * What a run waits for: `start` (a workflow's approval), or a tool call with its arguments:
 * `pay: payments_pay {"amount":10}` (secret values arrive masked).
 */
export function waitsFor(waiting: ExecutionRecord['waiting_for']): string {
  if (!waiting) return '-';
  if (waiting.kind === 'approval') return 'start';
  if (waiting.kind !== 'tool_call') return waiting.kind;
  const fields = waiting as { step?: unknown; tool?: unknown; arguments?: unknown };
  const args = JSON.stringify(fields.arguments ?? {});
  return `${String(fields.step)}: ${String(fields.tool)} ${args.length > 200 ? `${args.slice(0, 199)}…` : args}`;
}

/**
 * The inputs of a record as `name=value` pairs (JSON values), or undefined for none; secret
 * inputs arrive from the server as `***` already.
 */
export function inputsText(inputs: Record<string, unknown> | undefined): string | undefined {
  const entries = Object.entries(inputs ?? {});
  if (entries.length === 0) return undefined;
  return entries.map(([name, value]) => `${name}=${JSON.stringify(value)}`).join(' ');
}

/** The steps of an ended execution's result: name, status, attempts, duration, error. */
function stepTable(steps: Record<string, unknown>): string {
  const rows = Object.entries(steps).map(([name, value]) => {
    const step = value as {
      status?: string;
      attempts?: number;
      duration_ms?: number;
      error?: unknown;
    };
    return [
      name,
      step.status ?? '-',
      // 0: a step that calls nothing (transform, parallel, a skipped one) has no attempts.
      step.attempts !== undefined && step.attempts > 0 ? String(step.attempts) : '-',
      step.duration_ms !== undefined ? formatDuration(step.duration_ms) : '-',
      step.error !== undefined && step.error !== null ? errorText(step.error) : '',
    ];
  });
  if (rows.length === 0) return '';
  return `\n${formatTable(['STEP', 'STATUS', 'ATTEMPTS', 'DURATION', 'ERROR'], rows)}`;
}

function durationOf(record: ExecutionRecord): string {
  if (!record.started_at) return '-';
  const end = record.finished_at ? Date.parse(record.finished_at) : Date.now();
  return formatDuration(end - Date.parse(record.started_at));
}

function parseLimit(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 100)
    throw new InvalidArgumentError('expected a whole number from 1 to 100');
  return n;
}
