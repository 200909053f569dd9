import { isDeepStrictEqual } from 'node:util';
import type { Command } from 'commander';
import { WeftError, type Principal } from '@weft/core';
import { Weft, type RunResult, type WorkflowDefinition } from '@weft/sdk';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { loadAgentsFlag } from '../agents-dir.js';
import { loadFile } from '../load-files.js';
import { findProjectConfig, workflowFile, type ProjectConfig } from '../project-config.js';
import { addDetectorOptions, cliDetectors, type DetectorFlags } from '../detector-flags.js';
import { maxFileSizeOption, workflowOption } from '../options.js';
import { countLine, printDiagnostics } from '../report.js';
import { paint } from '../style.js';
import { collectList, requireModules } from './run-support.js';
import {
  addIdentityOptions,
  identityFailure,
  resolvePrincipal,
  type IdentityFlags,
} from './run-identity.js';
import { approverFor, preflight } from './run-authorization.js';
import { isFixtureFile, replay, replayCommand } from './workflow-replay.js';
import { formatDifferences } from '@weft/engine';

/** One fixture of a workflow's `testing.fixtures`. */
type Fixture = NonNullable<NonNullable<WorkflowDefinition['testing']>['fixtures']>[number];

interface TestFlags extends IdentityFlags, DetectorFlags {
  fixture: string[];
  allFixtures?: boolean;
  workflow?: string;
  dryRun?: boolean;
  plugins?: string;
  agents?: string;
  require: string[];
  maxFileSize: number;
}

/** `weft workflow test FILE --fixture NAME`: runs fixtures and compares their expected outputs. */
export function registerWorkflowTest(
  parent: Command,
  io: Io,
  setExit: (code: number) => void,
): void {
  const command = parent
    .command('test')
    .description("run testing.fixtures and compare each one's expectedOutputs with the outputs")
    .argument('<file>', 'workflow file')
    .option(
      '-f, --fixture <name|file>',
      'fixture to run, or a recorded fixture file (.yaml, .yml, .json) to replay; repeatable',
      collectList,
      [],
    )
    .option('--all-fixtures', 'run every fixture')
    .addOption(workflowOption())
    .option('--dry-run', 'answer actions from testing.dryRun.mockData')
    .option('--plugins <dir>', 'directory of connector definitions (default ./plugins)')
    .option('--agents <dir>', 'directory of agent definitions (default ./agents)')
    .option('--require <module>', 'ES module registering handlers; repeatable', collectList, [])
    .addOption(maxFileSizeOption());
  addIdentityOptions(addDetectorOptions(command))
    .addHelpText(
      'after',
      '\nFixtures of a workflow with authorization enabled run as --identity or the --role and' +
        '\n--permission declared, as with workflow run.' +
        '\n\nExit status: 0 every fixture passed, 1 one failed, 2 invalid file or usage, or a' +
        '\nworkflow refused by its authorization.' +
        '\n\nA recorded fixture file (weft workflow run --record, weft execution record) replays with' +
        '\nno connector or model called; a difference is shown by path, expected and actual.',
    )
    .action(async (file: string, flags: TestFlags) => setExit(await testCommand(io, file, flags)));
}

async function testCommand(io: Io, given: string, flags: TestFlags): Promise<number> {
  let config: ProjectConfig | undefined;
  try {
    config = findProjectConfig();
  } catch (error) {
    io.err(`weft: ${(error as Error).message}\n`);
    return EXIT.invalid;
  }
  const file = workflowFile(given, config);
  const files = flags.fixture.filter(isFixtureFile);
  if (files.length > 0) {
    if (files.length < flags.fixture.length || flags.allFixtures) {
      io.err('weft: replay recorded fixture files apart from named fixtures and --all-fixtures\n');
      return EXIT.invalid;
    }
    return replayCommand(io, file, files, flags.maxFileSize);
  }
  if (flags.fixture.length === 0 && !flags.allFixtures) {
    io.err('weft: name a fixture with --fixture NAME, or use --all-fixtures\n');
    return EXIT.invalid;
  }
  let detectors;
  try {
    detectors = cliDetectors(flags, process.env);
  } catch (error) {
    io.err(`weft: ${(error as Error).message}\n`);
    return EXIT.invalid;
  }
  const loaded = await loadFile(file, {
    maxFileSize: flags.maxFileSize,
    detectors: detectors.names(),
  });
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
  if (workflows.length === 0) {
    io.err(
      `weft: no workflow named "${flags.workflow}"; the file has ${loaded.workflows.map((w) => w.name).join(', ')}\n`,
    );
    return EXIT.invalid;
  }
  const known = workflows.flatMap((w) => (w.testing?.fixtures ?? []).map((f) => f.name));
  if (known.length === 0) {
    const which = flags.workflow === undefined ? file : `workflow "${flags.workflow}" of ${file}`;
    io.err(`weft: ${which} has no fixtures to run: add them under testing.fixtures\n`);
    return EXIT.invalid;
  }
  if (missing.length > 0) {
    io.err(
      `weft: no fixture named ${missing.map((m) => `"${m}"`).join(', ')}; the file has ${known.join(', ')}\n`,
    );
    return EXIT.invalid;
  }
  let principal: Principal | undefined;
  try {
    principal = await resolvePrincipal(flags);
  } catch (error) {
    if (!(error instanceof WeftError)) throw error;
    io.err(`weft: ${identityFailure(error)}\n`);
    return EXIT.invalid;
  }
  const approve = approverFor(io, flags);
  let agents;
  try {
    agents = await loadAgentsFlag(flags.agents, config?.agents);
  } catch (error) {
    io.err(`weft: ${(error as Error).message}\n`);
    return EXIT.invalid;
  }
  const runner =
    agents.length > 0
      ? (await import('../agent-runner.js')).localAgentRunner(agents, () => weft)
      : undefined;
  const weft: Weft = new Weft({
    logLevel: 'silent',
    ...(runner ? { agents: runner } : {}),
    guardrails: { ...runner?.guardrailsOptions(), detectors },
    ...(principal ? { identity: principal } : {}),
    ...(approve ? { approve } : {}),
  });
  weft.addWorkflows(loaded.workflows);
  const tested = [...new Set(cases.map((c) => c.workflow))];
  const refused = preflight(io, weft, tested, principal, approve !== undefined);
  if (refused !== undefined) return refused;
  try {
    await weft.loadConnectors(flags.plugins ?? config?.plugins ?? 'plugins', {
      missingOk: flags.plugins === undefined,
    });
    await requireModules(weft, flags.require.length > 0 ? flags.require : (config?.require ?? []));
  } catch (error) {
    io.err(`weft: ${(error as Error).message}\n`);
    return error instanceof WeftError ? EXIT.invalid : EXIT.failure;
  }
  let failed = 0;
  for (const { workflow, fixture } of cases) {
    const { problems, durationMs } = await runFixture(weft, workflow, fixture, flags.dryRun);
    const label = `${workflow.name} › ${fixture.name}`;
    if (problems.length === 0) {
      io.out(`${paint(io, 'green', 'pass')} ${label} (${durationMs} ms)\n`);
    } else {
      failed++;
      io.out(`${paint(io, 'red', 'FAIL')} ${label}\n${problems.map((p) => `    ${p}\n`).join('')}`);
    }
  }
  io.out(`${cases.length - failed} passed, ${failed} failed\n`);
  return failed === 0 ? EXIT.ok : EXIT.failure;
}

/** Runs one fixture; gives what differs from its expected outputs (nothing when it passed). */
async function runFixture(
  weft: Weft,
  workflow: WorkflowDefinition,
  fixture: Fixture,
  dryRun: boolean | undefined,
): Promise<{ problems: string[]; durationMs: number }> {
  // A recorded fixture (answers by step) replays with nothing called.
  if (fixture.mockData !== undefined || fixture.expectedSteps !== undefined) {
    const { differences, durationMs } = await replay(workflow, fixture, [...weft.workflows()]);
    const problems = differences.map((d) => formatDifferences([d], '    ').trim());
    return { problems, durationMs };
  }
  let result: RunResult;
  try {
    result = await weft.run(workflow, fixture.inputs ?? {}, dryRun ? { dryRun: true } : {});
  } catch (error) {
    // Its approval was rejected or timed out: the fixture did not run.
    const code = error instanceof WeftError ? `${error.code} ` : '';
    return { problems: [`not run: ${code}${(error as Error).message}`], durationMs: 0 };
  }
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
  return { problems, durationMs: result.duration_ms };
}
