import { InvalidArgumentError, Option, type Command } from 'commander';
import { HttpApi } from '@weft/sdk/client';
import { guard } from '../command-errors.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { outputOption } from '../options.js';
import { addServerOptions, type ServerFlags } from '../server-connection.js';
import { serverSettings } from './run-support.js';
import { formatTable } from '../table.js';

interface ListFlags extends ServerFlags {
  owner?: string;
  output: string;
}

interface SetFlags extends ServerFlags {
  maxCost?: number;
  maxTokens?: number;
  period: string;
  output: string;
}

/** One budget as `GET /budgets` answers it. */
interface BudgetStatus {
  scope: 'workflow' | 'workspace';
  owner: string;
  workflow: string | null;
  period: string;
  period_end: string;
  max_cost: number | null;
  max_tokens: number | null;
  spent_cost_usd: number;
  spent_tokens: number;
  reserved_cost_usd: number;
  reserved_tokens: number;
}

/** The server and key of a command, or what is missing. */
function api(flags: ServerFlags, what: string): HttpApi | string {
  const { cloudUrl, apiKey } = serverSettings(flags);
  if (cloudUrl === undefined)
    return 'give --server <url> (or set WORKFLOW_CLOUD_URL or WORKFLOW_REGISTRY_URL)';
  if (apiKey === undefined)
    return `${what} needs an API key: set WORKFLOW_REGISTRY_API_KEY or --api-key`;
  return new HttpApi({ baseUrl: cloudUrl, apiKey });
}

/**
 * `weft budgets`: the budgets across runs of the key's workspace on a server (`GET /budgets`):
 * each limit, what the current period spent and holds reserved, and when it ends.
 */
export function registerBudgets(
  program: Command,
  io: Io,
  setExit: (code: number) => void,
): Command[] {
  const budgets = program
    .command('budgets')
    .description(
      "the budgets across runs of your workspace on a server: limits, this period's spend and reservations, period end",
    )
    .option('--owner <owner>', 'another workspace (admin keys)');
  addServerOptions(budgets)
    .addOption(outputOption())
    .addHelpText(
      'after',
      '\nAdmins set workspace budgets with `weft admin budget set`; workflows declare theirs (`budgets:`).\n' +
        'Exit status: 0 listed, 2 missing server or key, or refused by the server, 1 server unreachable.',
    )
    .action(async (flags: ListFlags) =>
      guard(io, setExit, async () => {
        const client = api(flags, 'listing budgets');
        if (typeof client === 'string') {
          io.err(`error: ${client}\n`);
          return EXIT.invalid;
        }
        const query = flags.owner ? `?owner=${encodeURIComponent(flags.owner)}` : '';
        const answer = (await client.call('GET', `/budgets${query}`)).json as {
          owner: string;
          budgets: BudgetStatus[];
        };
        if (flags.output === 'json') {
          io.out(`${JSON.stringify(answer, null, 2)}\n`);
          return EXIT.ok;
        }
        if (answer.budgets.length === 0) {
          io.err(`no budgets for ${answer.owner}\n`);
          return EXIT.ok;
        }
        io.out(
          formatTable(
            [
              'BUDGET',
              'PERIOD',
              'COST (SPENT/RESERVED/LIMIT)',
              'TOKENS (SPENT/RESERVED/LIMIT)',
              'ENDS',
            ],
            answer.budgets.map((b) => [
              b.scope === 'workspace' ? `workspace ${b.owner}` : `workflow ${b.workflow}`,
              b.period,
              b.max_cost === null
                ? '-'
                : `$${b.spent_cost_usd} / $${b.reserved_cost_usd} / $${b.max_cost}`,
              b.max_tokens === null
                ? '-'
                : `${b.spent_tokens} / ${b.reserved_tokens} / ${b.max_tokens}`,
              b.period_end,
            ]),
          ),
        );
        return EXIT.ok;
      }),
    );
  return [budgets];
}

/**
 * `weft admin budget set|get|delete <owner>`: a workspace's budget across runs on a server,
 * with an admin key (`PUT`/`GET`/`DELETE /budgets/workspaces/{owner}`; changes are audited).
 */
export function registerBudgetAdmin(admin: Command, io: Io, setExit: (code: number) => void) {
  const budget = admin
    .command('budget')
    .description("a workspace's budget across runs on a server (admin key): set, get, delete");
  const set = budget
    .command('set <owner>')
    .description("set (replace) a workspace's budget: every agent step of its runs counts")
    .option('--max-cost <usd>', 'USD the period may spend', positive('--max-cost', false))
    .option('--max-tokens <n>', 'model tokens the period may use', positive('--max-tokens', true))
    .addOption(
      new Option('--period <period>', 'what the limits count over (UTC)')
        .choices(['day', 'week', 'month'])
        .makeOptionMandatory(),
    );
  addServerOptions(set)
    .addOption(outputOption())
    .action(async (owner: string, flags: SetFlags) =>
      guard(io, setExit, async () => {
        if (flags.maxCost === undefined && flags.maxTokens === undefined) {
          io.err('error: give --max-cost, --max-tokens, or both\n');
          return EXIT.invalid;
        }
        const client = api(flags, 'setting a budget');
        if (typeof client === 'string') {
          io.err(`error: ${client}\n`);
          return EXIT.invalid;
        }
        const answer = await client.call(
          'PUT',
          `/budgets/workspaces/${encodeURIComponent(owner)}`,
          {
            body: {
              ...(flags.maxCost !== undefined ? { max_cost: flags.maxCost } : {}),
              ...(flags.maxTokens !== undefined ? { max_tokens: flags.maxTokens } : {}),
              period: flags.period,
            },
          },
        );
        print(io, flags.output, answer.json);
        return EXIT.ok;
      }),
    );
  const get = budget.command('get <owner>').description("show a workspace's budget");
  addServerOptions(get)
    .addOption(outputOption())
    .action(async (owner: string, flags: ServerFlags & { output: string }) =>
      guard(io, setExit, async () => {
        const client = api(flags, 'reading a budget');
        if (typeof client === 'string') {
          io.err(`error: ${client}\n`);
          return EXIT.invalid;
        }
        const answer = await client.call('GET', `/budgets/workspaces/${encodeURIComponent(owner)}`);
        print(io, flags.output, answer.json);
        return EXIT.ok;
      }),
    );
  const remove = budget.command('delete <owner>').description("remove a workspace's budget");
  addServerOptions(remove).action(async (owner: string, flags: ServerFlags) =>
    guard(io, setExit, async () => {
      const client = api(flags, 'removing a budget');
      if (typeof client === 'string') {
        io.err(`error: ${client}\n`);
        return EXIT.invalid;
      }
      await client.call('DELETE', `/budgets/workspaces/${encodeURIComponent(owner)}`);
      io.out(`removed the workspace budget of ${owner}\n`);
      return EXIT.ok;
    }),
  );
  return [budget, set, get, remove];
}

function print(io: Io, output: string, json: unknown): void {
  if (output === 'json') {
    io.out(`${JSON.stringify(json, null, 2)}\n`);
    return;
  }
  const b = json as {
    owner: string;
    max_cost: number | null;
    max_tokens: number | null;
    period: string;
  };
  const limits = [
    b.max_cost !== null ? `$${b.max_cost}` : undefined,
    b.max_tokens !== null ? `${b.max_tokens} tokens` : undefined,
  ].filter(Boolean);
  io.out(`workspace ${b.owner}: ${limits.join(' and ')} a ${b.period}\n`);
}

function positive(flag: string, integer: boolean) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
      throw new InvalidArgumentError(
        `${flag} must be a positive ${integer ? 'whole number' : 'number'}, not ${value}`,
      );
    }
    return n;
  };
}
