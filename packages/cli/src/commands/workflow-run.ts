import { Option, type Command } from 'commander';
import { WeftError, type Principal, type StreamEvent } from '@weft/core';
import { resolveInputs, type WorkflowDefinition } from '@weft/engine';
import { Weft, type CommonWeftOptions, type RunResult, type RunsHereOptions } from '@weft/sdk';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { loadAgentsFlag } from '../agents-dir.js';
import { LiveStepList } from '../follow-execution.js';
import { loadFile } from '../load-files.js';
import { frozenLockfileOption, holdToLock } from '../lockfile-enforce.js';
import { findProjectConfig, workflowFile, type ProjectConfig } from '../project-config.js';
import { addDetectorOptions, cliDetectors, type DetectorFlags } from '../detector-flags.js';
import { maxFileSizeOption, outputOption, workflowOption } from '../options.js';
import { routeAiSdkWarnings } from '@weft/agents';
import { countLine, printDiagnostics } from '../report.js';
import {
  collectExecution,
  collectInput,
  collectList,
  maxForEachItemsFromEnv,
  parseJsonArgument,
  requireModules,
  missingServerSetting,
  resolveMode,
  sandboxFromEnv,
  serverSettings,
  tracingConfigured,
  type RunMode,
} from './run-support.js';
import { printMocked, printRun, runDocument } from './run-output.js';
import { RunInterrupts } from './run-interrupt.js';
import { runProgress } from './run-progress.js';
import { noteStreamingOff } from './stream-note.js';
import {
  addIdentityOptions,
  hasIdentityFlags,
  identityFailure,
  resolvePrincipal,
  type IdentityFlags,
} from './run-identity.js';
import {
  approverFor,
  preflight,
  refusalMessage,
  startFailureExit,
  toolApproverFor,
} from './run-authorization.js';
import { agentRunner, modeOptions, type ClientFlags } from './run-client-options.js';
import { RunRecorder } from './workflow-record.js';
import { select, startAsync } from './run-select.js';

interface RunFlags extends ClientFlags, IdentityFlags, DetectorFlags {
  input: Record<string, unknown>;
  workflow?: string;
  all?: boolean;
  output: string;
  stream?: boolean;
  logLevel: string;
  logFormat: 'text' | 'json';
  maxFileSize: number;
  agents?: string;
  dataDir: string;
  record?: string;
  frozenLockfile?: boolean;
}

/**
 * `weft workflow run FILE`: runs workflows locally, through a router (`--router`), on a weft
 * server (`--cloud`, with `--async` and `--stream`), or mixed (`--mode hybrid`, with `--router`
 * for the steps placed `self_hosted`): execution modes (docs/protocol.md#execution-modes).
 */
export function registerWorkflowRun(
  parent: Command,
  io: Io,
  setExit: (code: number) => void,
): void {
  const command = parent
    .command('run')
    .description(
      'run workflows of a file locally, with connectors from ./plugins and handlers from --require',
    )
    .argument('<file>', 'workflow file')
    .option(
      '-i, --input <key=value>',
      'an input (JSON values are parsed); repeatable',
      collectInput,
      {},
    )
    .addOption(workflowOption())
    .option('--all', 'run every workflow of the file')
    .option('--dry-run', 'answer actions from testing.dryRun.mockData')
    .option(
      '--payload <json|@file>',
      'trigger.payload of the run (a webhook body)',
      parseJsonArgument,
    )
    .option('--event <json|@file>', 'trigger.event of the run', parseJsonArgument)
    .option('--plugins <dir>', 'directory of connector definitions (default ./plugins)')
    .option('--agents <dir>', 'directory of agent definitions (default ./agents)')
    .option(
      '--data-dir <dir>',
      'local state: the ledger of budgets across runs of workflows that declare budgets (weft.db, as weft server keeps it)',
      './.weft',
    )
    .option(
      '--require <module>',
      'ES module whose default export registers handlers: (weft) => void; repeatable',
      collectList,
      [],
    )
    .option(
      '--router <url>',
      'self_hosted mode: send every action step to the router of weft server at this URL (with --mode hybrid: the steps placed self_hosted)',
    )
    .option('--router-cert <file>', 'PEM client certificate for a router that requires mutual TLS')
    .option('--router-key <file>', 'PEM private key of --router-cert')
    .option('--router-ca <file>', 'PEM CA of the router certificate (default: the system CAs)')
    .option(
      '--router-token <credential>',
      "the router's credential: an API key of its server, or its router token (default: --api-key, WORKFLOW_REGISTRY_API_KEY)",
    )
    .option('--cloud', 'cloud mode: run the whole workflow on the weft server (--server)')
    .addOption(
      new Option(
        '--mode <mode>',
        'execution mode (default local; --cloud and --router set it)',
      ).choices(['local', 'self_hosted', 'cloud', 'hybrid']),
    )
    .option(
      '--server <url>',
      'weft server of --cloud and --mode hybrid (default: WORKFLOW_CLOUD_URL, else WORKFLOW_REGISTRY_URL)',
    )
    .option('--api-key <key>', 'API key of the server (default: WORKFLOW_REGISTRY_API_KEY)')
    .option(
      '--async',
      'with --cloud: start the run, print the pending record (docs/runtime.md#execution-record) and exit',
    )
    .option(
      '--execution <place|plugin=place>',
      "hybrid: run every step (local|cloud|self_hosted), or one plugin's steps, there; repeatable",
      collectExecution,
    )
    .addOption(outputOption())
    .option('--stream', 'print each event as a JSON line while it runs (with --cloud: over SSE)')
    .option(
      '--record <file>',
      'when the run completes, write it as a testing fixture (replay: weft workflow test --fixture <file>)',
    )
    .addOption(
      new Option('--log-level <level>', 'step logs on stderr')
        .choices(['debug', 'info', 'warn', 'error', 'silent'])
        .default('warn'),
    )
    .addOption(
      new Option('--log-format <format>', 'step logs as readable text or JSON lines')
        .choices(['text', 'json'])
        .default('text'),
    )
    .addOption(maxFileSizeOption())
    .addOption(frozenLockfileOption());
  addIdentityOptions(addDetectorOptions(command))
    .addHelpText(
      'after',
      '\nA workflow with authorization enabled runs as --identity, or as the --role and --permission' +
        '\ndeclared; an approval is asked on the terminal (--approve gives it up front).' +
        '\n\nExit status: 0 every run completed, 1 a run failed (or its approval was rejected),' +
        '\n2 invalid file, input or usage, a run refused before any step ran (an unknown connector,' +
        '\nplugin or agent, a secret not set), or a run refused by its authorization.',
    )
    .action(async (file: string, flags: RunFlags) => {
      setExit(await runCommand(io, file, flags));
    });
}

async function runCommand(io: Io, given: string, flags: RunFlags): Promise<number> {
  let config: ProjectConfig | undefined;
  try {
    config = findProjectConfig();
  } catch (error) {
    return usage(io, (error as Error).message);
  }
  const file = workflowFile(given, config);
  if (flags.all && flags.workflow !== undefined)
    return usage(io, '--all and --workflow exclude each other');
  const mode = resolveMode(flags);
  if (!isMode(mode)) return usage(io, mode);
  let detectors;
  try {
    detectors = mode === 'cloud' ? undefined : cliDetectors(flags, process.env);
  } catch (error) {
    return usage(io, (error as Error).message);
  }
  const loaded = await loadFile(file, {
    maxFileSize: flags.maxFileSize,
    detectors: detectors?.names() ?? 'any',
  });
  printDiagnostics(io, loaded.diagnostics);
  if (!loaded.ok) {
    io.err(`${file}: ${countLine(loaded.diagnostics)}\n`);
    return EXIT.invalid;
  }
  const selected = select(loaded.workflows, flags);
  if (typeof selected === 'string') return usage(io, selected);
  if (flags.routerToken !== undefined && flags.router === undefined)
    return usage(io, '--router-token is the credential of --router: add --router URL');
  if ((flags.routerCert === undefined) !== (flags.routerKey === undefined))
    return usage(io, '--router-cert and --router-key go together');
  if (mode === 'cloud' && hasIdentityFlags(flags)) {
    return usage(
      io,
      '--identity, --role, --permission and --approve are for runs on this machine: with --cloud the server authorizes the caller of --api-key',
    );
  }
  const notRecorded = flags.record === undefined ? undefined : RunRecorder.refusal(flags, mode);
  if (notRecorded !== undefined) return usage(io, notRecorded);
  const missing = missingServerSetting(mode, flags);
  if (missing !== undefined) return usage(io, missing);
  const held = await holdToLock(io, file, config, loaded.workflows, selected, flags);
  if (typeof held === 'number') return held;
  let principal: Principal | undefined;
  try {
    principal = await resolvePrincipal(flags);
  } catch (error) {
    if (!(error instanceof WeftError)) throw error;
    return usage(io, identityFailure(error));
  }
  const approve = approverFor(io, flags);
  let weft: Weft;
  let closeLedger = async (): Promise<void> => undefined;
  try {
    const agents = mode === 'cloud' ? [] : await loadAgentsFlag(flags.agents, config?.agents);
    const budgeted = loaded.workflows.some((w) => w.budgets !== undefined);
    const made =
      agents.length > 0
        ? await agentRunner(agents, mode, flags, () => weft, budgeted ? flags.dataDir : undefined)
        : undefined;
    const runner = made?.runner;
    if (made) closeLedger = made.close;
    const common: CommonWeftOptions = {
      ...maxForEachItemsFromEnv(process.env),
      logLevel: flags.logLevel as 'warn',
      logFormat: flags.logFormat,
      ...(tracingConfigured(process.env) ? { observability: { enabled: true } } : {}),
    };
    const here: RunsHereOptions = {
      ...(runner ? { agents: runner } : {}),
      ...(detectors ? { guardrails: { ...runner?.guardrailsOptions(), detectors } } : {}),
      ...(principal ? { identity: principal } : {}),
      ...(approve ? { approve } : {}),
      ...(runner ? { toolApprovals: toolApproverFor(io, flags, principal) } : {}),
      ...sandboxFromEnv(io, process.env),
    };
    weft = new Weft(modeOptions(mode, flags, common, here));
    // Warnings of the model libraries are log lines on stderr: stdout stays the run's document.
    if (runner) routeAiSdkWarnings(weft.logger);
    weft.addWorkflows(loaded.workflows);
    for (const workflow of selected) resolveInputs(workflow, flags.input);
    if (mode === 'local' || mode === 'hybrid') {
      await weft.loadConnectors(flags.plugins ?? config?.plugins ?? 'plugins', {
        missingOk: flags.plugins === undefined,
      });
      await requireModules(
        weft,
        flags.require.length > 0 ? flags.require : (config?.require ?? []),
      );
    }
  } catch (error) {
    await closeLedger();
    io.err(`weft: ${(error as Error).message}\n`);
    return error instanceof WeftError || (error as Error).name === 'InvalidArgumentError'
      ? EXIT.invalid
      : EXIT.failure;
  }
  if (flags.async) return startAsync(io, weft, selected, flags);
  if (mode !== 'cloud') {
    const refused = preflight(io, weft, selected, principal, approve !== undefined);
    if (refused !== undefined) {
      await weft.close();
      await closeLedger();
      return refused;
    }
  }
  const interrupts = new RunInterrupts(io, {
    mode,
    ...(mode === 'cloud' ? { server: serverSettings(flags).cloudUrl } : {}),
  });
  try {
    return await runEach(io, weft, selected, flags, mode, principal, interrupts);
  } finally {
    interrupts.dispose();
    await closeLedger();
  }
}

/** Runs the selected workflows one after the other; an interrupt cancels the run and stops. */
async function runEach(
  io: Io,
  weft: Weft,
  selected: WorkflowDefinition[],
  flags: RunFlags,
  mode: RunMode,
  principal: Principal | undefined,
  interrupts: RunInterrupts,
): Promise<number> {
  const results: RunResult[] = [];
  for (const workflow of selected) {
    if (interrupts.exitCode !== undefined) break;
    interrupts.begin(workflow.name);
    const stream = flags.stream
      ? (event: StreamEvent) => io.out(`${JSON.stringify(event)}\n`)
      : undefined;
    if (flags.stream) noteStreamingOff(io, workflow);
    let result: RunResult;
    const text = flags.output === 'text' && !flags.stream;
    const progress = text && mode !== 'cloud' ? runProgress(io, workflow.name) : undefined;
    // A cloud run on a terminal: the step list of `weft execution events --follow`, live.
    const live = text && mode === 'cloud' && io.live ? new LiveStepList(io) : undefined;
    const recorder = flags.record === undefined ? undefined : new RunRecorder(flags.record);
    try {
      result = await weft.run(workflow, flags.input, {
        // The summary (and the progress) show the steps: no log lines repeating them.
        ...(text && !['info', 'debug'].includes(flags.logLevel) ? { logSteps: false } : {}),
        ...(flags.execution !== undefined ? { execution: flags.execution } : {}),
        ...(flags.dryRun ? { dryRun: true } : {}),
        trigger: {
          ...(flags.payload !== undefined ? { payload: flags.payload } : {}),
          ...(flags.event !== undefined ? { event: flags.event } : {}),
        },
        // Cloud runs are not canceled by Ctrl-C (they run on, see run-interrupt.ts).
        ...(mode === 'cloud'
          ? {
              onStarted: interrupts.onStarted,
              ...(stream ? { onEvent: stream } : live ? { onEvent: live.apply } : {}),
            }
          : {
              signal: interrupts.signal,
              // Every event follows the running steps; the stream gets what execution.streaming lets through.
              observe: (event: StreamEvent) => {
                interrupts.onEvent(event);
                progress?.onEvent(event);
                recorder?.observe(event);
              },
              ...(stream ? { onEvent: stream } : {}),
            }),
      });
    } catch (error) {
      live?.stop();
      // The run did not start: the server refused it (cloud mode: bad key, unknown plugin,
      // unreachable), or its authorization did (a refusal, a rejected or timed-out approval).
      await weft.close();
      io.err(
        error instanceof WeftError && error.code === 'FORBIDDEN' && mode !== 'cloud'
          ? refusalMessage(error, principal)
          : `weft: ${(error as Error).message}\n`,
      );
      return interrupts.exitCode ?? startFailureExit(error);
    }
    live?.stop();
    results.push(result);
    const shown = progress?.showedSteps() ?? (live !== undefined && live.list.steps.size > 0);
    if (flags.output === 'text') printRun(io, result, shown);
    printMocked(io, result);
    recorder?.write(io, workflow, flags.input, result);
  }
  await weft.close();
  if (flags.output === 'json') {
    const documents = results.map(runDocument);
    io.out(`${JSON.stringify(flags.all ? documents : documents[0], null, 2)}\n`);
  }
  if (interrupts.exitCode !== undefined) return interrupts.exitCode;
  if (results.some(refusedBeforeRunning)) return EXIT.invalid;
  return results.every((r) => r.status === 'completed') ? EXIT.ok : EXIT.failure;
}

/**
 * A run refused before any step ran: `VALIDATION` of what it needs (an unknown connector,
 * plugin or agent, a secret that is not set). Exit 2, as for an invalid file or input.
 */
function refusedBeforeRunning(result: RunResult): boolean {
  return (
    result.status === 'failed' &&
    result.error?.code === 'VALIDATION' &&
    Object.keys(result.steps).length === 0
  );
}

function isMode(value: string): value is RunMode {
  return ['local', 'self_hosted', 'cloud', 'hybrid'].includes(value);
}

function usage(io: Io, message: string): number {
  io.err(`weft: ${message}\n`);
  return EXIT.invalid;
}
