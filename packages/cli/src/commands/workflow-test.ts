import { isDeepStrictEqual } from 'node:util';
import type { Command } from 'commander';
import { WeftError } from '@weft/core';
import { Weft } from '@weft/sdk';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { loadFile } from '../load-files.js';
import { maxFileSizeOption, workflowOption } from '../options.js';
import { countLine, printDiagnostics } from '../report.js';
import { paint } from '../style.js';
import { collectList, requireModules } from './run-support.js';

interface TestFlags {
  fixture: string[];
  allFixtures?: boolean;
  workflow?: string;
  dryRun?: boolean;
  plugins?: string;
  require: string[];
  maxFileSize: number;
}

/** `weft workflow test FILE --fixture NAME`: runs fixtures and compares their expected outputs. */
export function registerWorkflowTest(
  parent: Command,
  io: Io,
  setExit: (code: number) => void,
): void {
  parent
    .command('test')
    .description("run testing.fixtures and compare each one's expectedOutputs with the outputs")
    .argument('<file>', 'workflow file')
    .option('-f, --fixture <name>', 'fixture to run; repeatable', collectList, [])
    .option('--all-fixtures', 'run every fixture')
    .addOption(workflowOption())
    .option('--dry-run', 'answer actions from testing.dryRun.mockData')
    .option('--plugins <dir>', 'directory of connector definitions (default ./plugins)')
    .option('--require <module>', 'ES module registering handlers; repeatable', collectList, [])
    .addOption(maxFileSizeOption())
    .addHelpText(
      'after',
      '\nExit status: 0 every fixture passed, 1 one failed, 2 invalid file or usage.',
    )
    .action(async (file: string, flags: TestFlags) => setExit(await testCommand(io, file, flags)));
}

async function testCommand(io: Io, file: string, flags: TestFlags): Promise<number> {
  if (flags.fixture.length === 0 && !flags.allFixtures) {
    io.err('weft: name a fixture with --fixture NAME, or use --all-fixtures\n');
    return EXIT.invalid;
  }
  const loaded = await loadFile(file, { maxFileSize: flags.maxFileSize });
  printDiagnostics(io, loaded.diagnostics);
  if (!loaded.ok) {
    io.err(`${file}: ${countLine(loaded.diagnostics)}\n`);
    return EXIT.invalid;
  }
  const workflows = loaded.workflows.filter(
    (w) => flags.workflow === undefined || w.name === flags.workflow,
  );
  const cases = workflows.flatMap((workflow) =>
    (workflow.testing?.fixtures ?? [])
      .filter((f) => flags.allFixtures || flags.fixture.includes(f.name))
      .map((fixture) => ({ workflow, fixture })),
  );
  const missing = flags.fixture.filter((name) => !cases.some((c) => c.fixture.name === name));
  if (missing.length > 0 || cases.length === 0) {
    const known = workflows.flatMap((w) => (w.testing?.fixtures ?? []).map((f) => f.name));
    io.err(
      `weft: no fixture named ${missing.map((m) => `"${m}"`).join(', ') || 'at all'}; the file has ${known.join(', ') || 'none'}\n`,
    );
    return EXIT.invalid;
  }
  const weft = new Weft({ logLevel: 'silent' });
  weft.addWorkflows(loaded.workflows);
  try {
    await weft.loadConnectors(flags.plugins ?? 'plugins', {
      missingOk: flags.plugins === undefined,
    });
    await requireModules(weft, flags.require);
  } catch (error) {
    io.err(`weft: ${(error as Error).message}\n`);
    return error instanceof WeftError ? EXIT.invalid : EXIT.failure;
  }
  let failed = 0;
  for (const { workflow, fixture } of cases) {
    const result = await weft.run(
      workflow,
      fixture.inputs ?? {},
      flags.dryRun ? { dryRun: true } : {},
    );
    const problems: string[] = [];
    if (result.status !== 'completed')
      problems.push(`run ${result.status}: ${result.error?.code} ${result.error?.message}`);
    for (const [key, expected] of Object.entries(fixture.expectedOutputs ?? {})) {
      const actual = result.outputs[key];
      if (!isDeepStrictEqual(actual, expected)) {
        problems.push(
          `outputs.${key}\n      - expected ${JSON.stringify(expected)}\n      + actual   ${JSON.stringify(actual)}`,
        );
      }
    }
    const label = `${workflow.name} › ${fixture.name}`;
    if (problems.length === 0) {
      io.out(`${paint(io, 'green', 'pass')} ${label} (${result.duration_ms} ms)\n`);
    } else {
      failed++;
      io.out(`${paint(io, 'red', 'FAIL')} ${label}\n${problems.map((p) => `    ${p}\n`).join('')}`);
    }
  }
  io.out(`${cases.length - failed} passed, ${failed} failed\n`);
  return failed === 0 ? EXIT.ok : EXIT.failure;
}
