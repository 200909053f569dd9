import type { Command } from 'commander';
import { summarizeWorkflow } from '@weft/engine';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { loadFile, type LoadFlags } from '../load-files.js';
import { maxFileSizeOption, outputOption, workflowOption } from '../options.js';
import { countLine, printDiagnostics } from '../report.js';
import { formatTable } from '../table.js';

/** `weft workflow list FILE`: the workflows of a file, one per line. */
export function registerWorkflowList(
  parent: Command,
  io: Io,
  setExit: (code: number) => void,
): void {
  parent
    .command('list')
    .description('list the workflows of a file: name, version, triggers, step count, description')
    .argument('<file>', 'workflow file')
    .addOption(workflowOption())
    .addOption(maxFileSizeOption())
    .addOption(outputOption())
    .action(async (file: string, flags: LoadFlags & { output: string }) => {
      const loaded = await loadFile(file, flags);
      if (!loaded.ok) {
        printDiagnostics(io, loaded.diagnostics);
        io.err(`${file}: ${countLine(loaded.diagnostics)}\n`);
        setExit(EXIT.invalid);
        return;
      }
      printDiagnostics(io, loaded.diagnostics);
      const summaries = loaded.workflows.map(summarizeWorkflow);
      if (flags.output === 'json') {
        io.out(`${JSON.stringify(summaries, null, 2)}\n`);
      } else {
        const rows = summaries.map((s) => [
          s.name,
          s.version,
          s.triggers.join(',') || '-',
          String(s.steps),
          s.description.split('\n')[0] ?? '',
        ]);
        io.out(formatTable(['NAME', 'VERSION', 'TRIGGERS', 'STEPS', 'DESCRIPTION'], rows));
      }
      setExit(EXIT.ok);
    });
}
