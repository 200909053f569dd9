import { readdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { WeftError } from '@weft/core';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { loadFile } from '../load-files.js';
import { lockPath, readLockfileIfAny, writeLockfile, type Lockfile } from '../lockfile.js';
import { describeMismatch, planLock, type LockPlan } from '../lockfile-plan.js';
import { rawWorkflows, readShelf } from '../lockfile-resolve.js';
import { findProjectConfig, workflowFile, type ProjectConfig } from '../project-config.js';
import { maxFileSizeOption } from '../options.js';
import { countLine, printDiagnostics } from '../report.js';
import { collectList } from './run-support.js';

interface LockFlags {
  update: string[];
  plugins?: string;
  agents?: string;
  maxFileSize: number;
}

/**
 * `weft workflow lock [files...]`: writes `weft.lock` (beside weft.config.yaml, else beside the
 * files) with the version and checksum of every plugin, agent and subworkflow each workflow
 * references (docs/workflow-language.md#lock-the-versions).
 */
export function registerWorkflowLock(
  parent: Command,
  io: Io,
  setExit: (code: number) => void,
): void {
  parent
    .command('lock')
    .description(
      'write weft.lock: the version and SHA-256 checksum of every plugin, agent and subworkflow the workflows reference',
    )
    .argument(
      '[files...]',
      "workflow files (default: every file of weft.config.yaml's workflows directory)",
    )
    .option(
      '--update <slug>',
      'move only this plugin, agent (namespace/name) or subworkflow to what is found now; repeatable',
      collectList,
      [],
    )
    .option('--plugins <dir>', 'directory of connector definitions (default ./plugins)')
    .option('--agents <dir>', 'directory of agent definitions (default ./agents)')
    .addOption(maxFileSizeOption())
    .addHelpText(
      'after',
      '\nThe lock is written beside weft.config.yaml when the project has one, else beside the' +
        '\nworkflow files. A reference whose checksum changed at the same version is refused' +
        '\nunless --update names it. Exit status: 0 written (or up to date), 2 invalid file,' +
        '\nlock or usage, or a refused change.',
    )
    .action(async (files: string[], flags: LockFlags) =>
      setExit(await lockCommand(io, files, flags)),
    );
}

async function lockCommand(io: Io, given: string[], flags: LockFlags): Promise<number> {
  try {
    const config = findProjectConfig();
    const files = await filesOf(given, config);
    if (typeof files === 'string') return usage(io, files);
    const path = lockPath(files[0]!, config);
    if (!config && files.some((f) => resolve(dirname(f)) !== resolve(dirname(files[0]!))))
      return usage(
        io,
        'the files are in different directories: lock each directory on its own, or add a weft.config.yaml at the project root (the lock goes beside it)',
      );
    const existing = await readLockfileIfAny(path);
    const shelf = await readShelf(
      flags.plugins ?? config?.plugins ?? 'plugins',
      flags.agents ?? config?.agents ?? 'agents',
      dirname(resolve(path)),
    );
    let lock: Lockfile | undefined = existing;
    const total: LockPlan = {
      lock: { workflows: {} },
      changes: [],
      refused: [],
      unresolved: [],
      unmatched: [],
    };
    const seen = new Map<string, string>();
    const matched = new Set<string>();
    for (const file of files) {
      const loaded = await loadFile(file, { maxFileSize: flags.maxFileSize, detectors: 'any' });
      printDiagnostics(io, loaded.diagnostics);
      if (!loaded.ok) {
        io.err(`${file}: ${countLine(loaded.diagnostics)}\n`);
        return EXIT.invalid;
      }
      for (const w of loaded.workflows) {
        const other = seen.get(w.name);
        if (other !== undefined && other !== file)
          return usage(
            io,
            `workflow "${w.name}" is in ${other} and in ${file}: a lock keys workflows by name`,
          );
        seen.set(w.name, file);
      }
      const all = await rawWorkflows(file, loaded.workflows, flags.maxFileSize);
      const plan = planLock(lock, all, all, shelf, flags.update);
      lock = plan.lock;
      total.changes.push(...plan.changes);
      total.refused.push(...plan.refused);
      total.unresolved.push(...plan.unresolved);
      for (const u of flags.update) if (!plan.unmatched.includes(u)) matched.add(u);
    }
    const unmatched = flags.update.filter((u) => !matched.has(u));
    if (unmatched.length > 0)
      return usage(
        io,
        `--update ${unmatched.join(', ')}: no plugin, agent or subworkflow of the workflows has that name`,
      );
    if (total.refused.length > 0) {
      io.err(
        `weft: not written: a checksum changed at the same version (the file was changed in place):\n` +
          total.refused.map((m) => `  ${describeMismatch(m)}\n`).join('') +
          'If the change is wanted, accept it with --update <slug> and review it\n',
      );
      return EXIT.invalid;
    }
    for (const u of total.unresolved)
      io.err(
        `note: ${u}: no definition found here (a handler, or a server's plugin); not locked\n`,
      );
    await writeLockfile(path, lock!);
    if (total.changes.length === 0) io.out(`${path} is up to date\n`);
    else {
      io.out(`wrote ${path}\n`);
      for (const change of total.changes) io.out(`  ${change}\n`);
    }
    return EXIT.ok;
  } catch (error) {
    io.err(`weft: ${(error as Error).message}\n`);
    return error instanceof WeftError || (error as Error).name === 'InvalidArgumentError'
      ? EXIT.invalid
      : EXIT.failure;
  }
}

/** The files to lock: as given, else every workflow file of the configuration's directory. */
async function filesOf(
  given: string[],
  config: ProjectConfig | undefined,
): Promise<string[] | string> {
  if (given.length > 0) return given.map((f) => workflowFile(f, config));
  if (config?.workflows === undefined)
    return 'name the workflow files to lock (or set workflows: in weft.config.yaml)';
  const dir = config.workflows;
  const names = (await readdir(dir)).filter((n) => /^[^.].*\.(ya?ml|json)$/i.test(n)).sort();
  if (names.length === 0) return `no workflow files in ${dir}`;
  return names.map((n) => join(dir, n));
}

function usage(io: Io, message: string): number {
  io.err(`weft: ${message}\n`);
  return EXIT.invalid;
}
