import { Option, type Command } from 'commander';
import { ConflictError, fromErrorObject } from '@weft/core';
import {
  calledWorkflows,
  compileLoadOptions,
  isPlainObject,
  parseWorkflowSource,
} from '@weft/engine';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { guard } from '../command-errors.js';
import { loadFile, type LoadedFile, type LoadFlags } from '../load-files.js';
import { readInputFile } from '../read-input.js';
import { maxFileSizeOption, outputOption, workflowOption } from '../options.js';
import { countLine, printDiagnostics } from '../report.js';
import { apiKeyOption, RegistryClient } from '../registry-client.js';
import { checkDeploy } from './workflow-deploy-check.js';

interface DeployFlags extends LoadFlags {
  server?: string;
  apiKey?: string;
  output: string;
  strict?: boolean;
  check?: boolean;
  force?: boolean;
}

/** What the server answered for one deployed workflow (`PUT /workflows/{name}`). */
interface DeployAnswer {
  name: string;
  version: string;
  revision: number;
  previous_version: string | null;
  webhooks: string[];
  warnings: string[];
  /** Present when the deploy was forced over breaking changes (what it overrode). */
  impact?: { breaking: boolean; summary: string };
}

/**
 * `weft workflow deploy FILE --server URL`: validates the file, then deploys each of its
 * workflows (or the one `--workflow` names) with `PUT /workflows/{name}`, as written in the file.
 * The server's warnings (a plugin or an agent step it cannot run, validator warnings) are
 * printed; with `--strict` they refuse the deployment: every workflow of the file is first
 * checked with a dry run, and none is deployed when one has a warning.
 */
export function registerWorkflowDeploy(
  parent: Command,
  io: Io,
  setExit: (code: number) => void,
): void {
  parent
    .command('deploy')
    .description('deploy the workflows of a file to a weft server, where their triggers run')
    .argument('<file>', 'workflow file')
    .addOption(workflowOption())
    .addOption(
      new Option(
        '--server <url>',
        'server address (default: WORKFLOW_CLOUD_URL, then WORKFLOW_REGISTRY_URL)',
      ),
    )
    .addOption(apiKeyOption())
    .addOption(
      new Option(
        '--strict',
        'refuse to deploy when the server warns (e.g. a plugin or an agent it cannot run): nothing is deployed',
      ),
    )
    .addOption(
      new Option(
        '--check',
        'print what deploying would do to the work in progress; deploy nothing (exit 1: breaking)',
      ).conflicts('force'),
    )
    .addOption(
      new Option('--force', 'deploy even when it breaks executions waiting for approval (audited)'),
    )
    .addOption(maxFileSizeOption())
    .addOption(outputOption())
    .action(async (file: string, flags: DeployFlags) =>
      guard(io, setExit, async () => {
        const server =
          flags.server ??
          (process.env['WORKFLOW_CLOUD_URL'] || process.env['WORKFLOW_REGISTRY_URL']);
        if (!server) {
          io.err('error: give --server <url> (or set WORKFLOW_CLOUD_URL)\n');
          return EXIT.invalid;
        }
        const client = new RegistryClient({
          registry: server,
          ...(flags.apiKey !== undefined ? { apiKey: flags.apiKey } : {}),
        });
        if (!client.hasKey) {
          io.err('error: deploying needs an API key: set WORKFLOW_REGISTRY_API_KEY or --api-key\n');
          return EXIT.invalid;
        }
        const loaded = await loadFile(file, { ...flags, detectors: 'any' });
        printDiagnostics(io, loaded.diagnostics);
        if (!loaded.ok) {
          io.err(`${file}: ${countLine(loaded.diagnostics)}\n`);
          return EXIT.invalid;
        }
        const definitions = calleesFirst(await rawDefinitions(file, loaded, flags), loaded);
        const put = (definition: Record<string, unknown>, query: string) =>
          client.request(
            'PUT',
            `/workflows/${encodeURIComponent(String(definition['name']))}${query}`,
            { body: definition },
          );
        if (flags.check) {
          const json = flags.output === 'json';
          const strict = flags.strict === true;
          return checkDeploy(io, put, definitions, client.baseUrl, { strict, json });
        }
        if (flags.strict || (!flags.force && definitions.length > 1)) {
          // Checked all first, so that a warning (strict) or a breaking impact in a later
          // workflow deploys none of them.
          for (const definition of definitions) {
            const answer = await put(
              definition,
              `?${flags.strict ? 'strict=true&' : ''}dry_run=true`,
            );
            if (answer.status >= 400)
              throw fromErrorObject(answer.json ?? { message: `HTTP ${answer.status}` });
            if (!flags.force) refuseBreaking(answer.json, file);
          }
        }
        const answers: DeployAnswer[] = [];
        for (const definition of definitions) {
          const answer = await put(definition, deployQuery(flags));
          if (answer.status >= 400) {
            if (answers.length > 0) io.err(`deployed before the error: ${names(answers)}\n`);
            throw fromErrorObject(answer.json ?? { message: `HTTP ${answer.status}` });
          }
          answers.push(answer.json as DeployAnswer);
        }
        if (flags.output === 'json') {
          io.out(`${JSON.stringify(answers, null, 2)}\n`);
          return EXIT.ok;
        }
        for (const a of answers) {
          const from = a.previous_version ? ` (was ${a.previous_version})` : '';
          io.out(
            `deployed ${a.name} ${a.version}${from}, revision ${a.revision}, to ${client.baseUrl}\n`,
          );
          for (const hook of a.webhooks) io.out(`  webhook: ${hook}\n`);
          for (const warning of a.warnings) io.err(`  warning: ${warning}\n`);
          if (a.impact?.breaking) io.err(`  forced (audited): ${a.impact.summary}\n`);
        }
        return EXIT.ok;
      }),
    );
}

/** The definitions of the loaded workflows as written in the file (the server validates them). */
async function rawDefinitions(
  file: string,
  loaded: LoadedFile,
  flags: LoadFlags,
): Promise<Record<string, unknown>[]> {
  const wanted = new Set(loaded.workflows.map((w) => w.name));
  const read = await readInputFile(file, flags.maxFileSize);
  if (!read.ok) throw new Error(read.diagnostic.message);
  const { value } = parseWorkflowSource(
    read.bytes,
    compileLoadOptions({ maxFileSize: flags.maxFileSize, file }),
  );
  const list = isPlainObject(value) && Array.isArray(value['workflows']) ? value['workflows'] : [];
  return list.filter(
    (raw): raw is Record<string, unknown> => isPlainObject(raw) && wanted.has(String(raw['name'])),
  );
}

/**
 * `definitions` ordered so that a workflow another one of the file calls (`type: workflow`) is
 * deployed before its caller: the server then knows it when it checks the caller, which would
 * otherwise warn that it is not defined. Calls in a cycle keep the file's order.
 */
function calleesFirst(
  definitions: Record<string, unknown>[],
  loaded: LoadedFile,
): Record<string, unknown>[] {
  const byName = new Map(loaded.workflows.map((w) => [w.name, w]));
  const ordered: Record<string, unknown>[] = [];
  const placed = new Set<string>();
  const visit = (definition: Record<string, unknown>, path: Set<string>): void => {
    const name = String(definition['name']);
    if (placed.has(name) || path.has(name)) return;
    path.add(name);
    const workflow = byName.get(name);
    const calls = workflow ? calledWorkflows(workflow, (callee) => byName.get(callee)) : [];
    for (const call of calls) {
      if (call.caller !== name) continue;
      const callee = definitions.find((d) => d['name'] === call.name);
      if (callee) visit(callee, path);
    }
    path.delete(name);
    placed.add(name);
    ordered.push(definition);
  };
  for (const definition of definitions) visit(definition, new Set());
  return ordered;
}

/**
 * Refuses, before anything of the file is deployed, a dry run's answer whose impact is breaking
 * (the server would refuse it with 409 unless forced).
 */
function refuseBreaking(answer: unknown, file: string): void {
  const { name, impact } = answer as DeployAnswer;
  if (impact?.breaking !== true) return;
  throw new ConflictError(
    `not deployed: ${impact.summary} for "${name}"; nothing of ${file} was deployed. See it with weft workflow deploy --check; deploy anyway with --force`,
    { reason: 'breaking_impact', field: 'force', workflow: name },
  );
}

/** The query of a real deploy: `?strict=true`, `?force=true`, both or none. */
function deployQuery(flags: DeployFlags): string {
  const query = [flags.strict ? 'strict=true' : '', flags.force ? 'force=true' : ''];
  const joined = query.filter((q) => q !== '').join('&');
  return joined === '' ? '' : `?${joined}`;
}

function names(answers: DeployAnswer[]): string {
  return answers.map((a) => a.name).join(', ');
}
