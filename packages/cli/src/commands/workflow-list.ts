import type { Command } from 'commander';
import { summarizeWorkflow, type WorkflowSummary } from '@weft/engine';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { loadFile, type LoadFlags } from '../load-files.js';
import { maxFileSizeOption, outputOption, workflowOption } from '../options.js';
import { countLine, printDiagnostics } from '../report.js';
import { formatTable } from '../table.js';

/**
 * `weft workflow list FILE...`: the workflows of the files, one per line (with a FILE column, and
 * a `file` key in JSON, when there are several files). A broken file is reported and skipped;
 * the exit status is then 2.
 */
export function registerWorkflowList(
  parent: Command,
  io: Io,
  setExit: (code: number) => void,
): void {
  parent
    .command('list')
    .description('list the workflows of files: name, version, triggers, step count, description')
    .argument('<files...>', 'workflow files')
    .addOption(workflowOption())
    .addOption(maxFileSizeOption())
    .addOption(outputOption())
    .action(async (files: string[], flags: LoadFlags & { output: string }) => {
      const several = files.length > 1;
      const summaries: (WorkflowSummary & { file?: string })[] = [];
      let ok = true;
      for (const file of files) {
        const loaded = await loadFile(file, { ...flags, detectors: 'any' });
        printDiagnostics(io, loaded.diagnostics);
        if (!loaded.ok) {
          io.err(`${file}: ${countLine(loaded.diagnostics)}\n`);
          ok = false;
          continue;
        }
        for (const workflow of loaded.workflows)
          summaries.push({ ...(several ? { file } : {}), ...summarizeWorkflow(workflow) });
      }
      if (flags.output === 'json') {
        io.out(`${JSON.stringify(summaries, null, 2)}\n`);
      } else if (summaries.length > 0) {
        const rows = summaries.map((s) => [
          ...(several ? [s.file ?? ''] : []),
          s.name,
          s.version,
          s.triggers.join(',') || '-',
          String(s.steps),
          s.description.split('\n')[0] ?? '',
        ]);
        const head = ['NAME', 'VERSION', 'TRIGGERS', 'STEPS', 'DESCRIPTION'];
        io.out(formatTable(several ? ['FILE', ...head] : head, rows));
      }
      setExit(ok ? EXIT.ok : EXIT.invalid);
    });
}
