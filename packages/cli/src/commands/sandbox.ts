import type { Command } from 'commander';
import { Sandbox } from '@weft/sdk';
import { sandboxSettingsFromEnv } from '@weft/server/settings';
import { guard } from '../command-errors.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { outputOption } from '../options.js';
import { formatTable } from '../table.js';

const HELP = `
Reads WEFT_SANDBOX, WEFT_CGROUP_PARENT and WEFT_SCRATCH_DIR as weft server and weft workflow run
do. A limit marked "no" is not enforced on this host: in strict mode (the default) a connector or
step that declares it is refused with VALIDATION before it runs; with WEFT_SANDBOX=best-effort it
runs unenforced and a warning is printed once per connector. Limits a connector does not declare
get the defaults where the host can enforce them. Exits 0 unless the probe itself fails.
`;

/** `weft sandbox check`: which connector runtime limits this host enforces, and how. */
export function registerSandbox(
  program: Command,
  io: Io,
  setExit: (code: number) => void,
): Command[] {
  const sandbox = program.command('sandbox');
  sandbox
    .command('check')
    .description(
      "probe this host's connector sandbox: per runtime limit, whether it is enforced and how, or why not",
    )
    .addOption(outputOption())
    .addHelpText('after', HELP)
    .action(async (flags: { output: string }) =>
      guard(io, setExit, async () => {
        const settings = sandboxSettingsFromEnv(process.env);
        const opened = await Sandbox.open(settings);
        const report = opened.report();
        opened.close();
        const mode = settings.mode ?? 'strict';
        if (flags.output === 'json') {
          io.out(`${JSON.stringify({ mode, limits: report })}\n`);
          return EXIT.ok;
        }
        io.out(
          formatTable(
            ['LIMIT', 'ENFORCED', 'HOW / WHY NOT'],
            report.map((r) => [r.limit, r.enforced ? 'yes' : 'no', r.how]),
          ),
        );
        io.out(
          mode === 'strict'
            ? '\nmode strict: a connector or step declaring a limit marked "no" is refused (WEFT_SANDBOX=best-effort runs it unenforced)\n'
            : '\nmode best-effort: a limit marked "no" that a connector or step declares runs unenforced, with a warning\n',
        );
        return EXIT.ok;
      }),
    );
  return [sandbox, ...sandbox.commands];
}
