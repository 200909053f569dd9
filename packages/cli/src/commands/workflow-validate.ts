import type { Command } from 'commander';
import { sortDiagnostics, summarizeWorkflow, type WorkflowSummary } from '@weft/engine';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { loadAgentsFlag, unknownAgentDiagnostics } from '../agents-dir.js';
import { loadFile, type LoadFlags } from '../load-files.js';
import { findProjectConfig, workflowFile, type ProjectConfig } from '../project-config.js';
import { addDetectorOptions, cliDetectors, type DetectorFlags } from '../detector-flags.js';
import { maxFileSizeOption, outputOption, workflowOption } from '../options.js';
import { countLine, printDiagnostics } from '../report.js';
import { paint } from '../style.js';

/** `weft workflow validate FILE...`: checks workflow files and reports every problem. */
export function registerWorkflowValidate(
  parent: Command,
  io: Io,
  setExit: (code: number) => void,
): void {
  const command = parent
    .command('validate')
    .description('check workflow files (YAML or JSON) and report every error with its place')
    .argument('<files...>', 'workflow files')
    .addOption(workflowOption())
    .addOption(maxFileSizeOption())
    .addOption(outputOption())
    .option(
      '--agents <dir>',
      'agent definitions the agent steps must resolve to (default ./agents; not checked when missing)',
    )
    .addHelpText(
      'after',
      '\nExit status: 0 when every file is valid (warnings allowed), 2 otherwise.',
    );
  addDetectorOptions(command).action(
    async (
      files: string[],
      flags: LoadFlags & DetectorFlags & { output: string; agents?: string },
    ) => {
      let agents;
      let config: ProjectConfig | undefined;
      try {
        config = findProjectConfig();
        agents = await loadAgentsFlag(flags.agents, config?.agents);
        flags.detectors = cliDetectors(flags, process.env).names();
      } catch (error) {
        io.err(`weft: ${(error as Error).message}\n`);
        setExit(EXIT.invalid);
        return;
      }
      const results = [];
      for (const given of files) {
        const file = workflowFile(given, config);
        const result = await loadFile(file, flags);
        if (result.ok && (agents.length > 0 || flags.agents !== undefined)) {
          const unknown = unknownAgentDiagnostics(file, result.workflows, agents);
          if (unknown.length > 0) {
            result.diagnostics.push(...unknown);
            result.ok = false;
          }
        }
        if (result.ok) sortDiagnostics(result.diagnostics);
        results.push(result);
      }
      if (flags.output === 'json') {
        const report = results.map((r) => ({
          file: r.file,
          ok: r.ok,
          workflows: r.workflows.map(summarizeWorkflow),
          diagnostics: r.diagnostics,
        }));
        io.out(`${JSON.stringify(report, null, 2)}\n`);
      } else {
        for (const r of results) {
          printDiagnostics(io, r.diagnostics);
          if (r.ok) {
            io.out(`${paint(io, 'green', 'ok')} ${r.file}\n`);
            for (const w of r.workflows) io.out(`  ${summaryLine(summarizeWorkflow(w))}\n`);
          } else {
            io.err(`${r.file}: ${countLine(r.diagnostics)}\n`);
          }
        }
      }
      setExit(results.every((r) => r.ok) ? EXIT.ok : EXIT.invalid);
    },
  );
}

/** `name 1.0.0: 3 steps, 2 inputs, 1 output; triggers: schedule, webhook`. */
export function summaryLine(s: WorkflowSummary): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const parts = [
    plural(s.steps, 'step'),
    plural(s.inputs.length, 'input'),
    plural(s.outputs.length, 'output'),
  ];
  const triggers = s.triggers.length > 0 ? s.triggers.join(', ') : 'none';
  return `${s.name} ${s.version}: ${parts.join(', ')}; triggers: ${triggers}`;
}
