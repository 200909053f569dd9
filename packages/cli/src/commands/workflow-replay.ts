import {
  formatDifferences,
  loadFixtureFile,
  replayFixture,
  type Difference,
  type WorkflowDefinition,
} from '@weft/engine';
import type { Fixture } from '@weft/core';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { loadFile } from '../load-files.js';
import { readInputFile } from '../read-input.js';
import { countLine, printDiagnostics } from '../report.js';
import { paint } from '../style.js';

/** Whether a `--fixture` value names a recorded fixture file rather than a fixture. */
export function isFixtureFile(value: string): boolean {
  return /\.(ya?ml|json)$/i.test(value);
}

/**
 * `weft workflow test FILE --fixture fixtures/x.yaml`: replays recorded fixtures against the
 * workflows of FILE with nothing called (docs/workflow-language.md#record-fixtures-from-real-runs)
 * and prints, for each, every output and step that changed. Exit 0 all green, 1 a difference,
 * 2 an invalid workflow or fixture file.
 */
export async function replayCommand(
  io: Io,
  file: string,
  fixtureFiles: readonly string[],
  maxFileSize: number,
): Promise<number> {
  const loaded = await loadFile(file, { maxFileSize, detectors: 'any' });
  printDiagnostics(io, loaded.diagnostics);
  if (!loaded.ok) {
    io.err(`${file}: ${countLine(loaded.diagnostics)}\n`);
    return EXIT.invalid;
  }
  const cases: { workflow: WorkflowDefinition; fixture: Fixture }[] = [];
  for (const path of fixtureFiles) {
    const read = await readInputFile(path, maxFileSize);
    const fixtures = read.ok
      ? loadFixtureFile(read.bytes, loaded.workflows, { file: path, maxFileSize })
      : { ok: false as const, diagnostics: [read.diagnostic] };
    printDiagnostics(io, fixtures.diagnostics);
    if (!fixtures.ok) {
      io.err(`${path}: ${countLine(fixtures.diagnostics)}\n`);
      return EXIT.invalid;
    }
    for (const fixture of fixtures.fixtures) cases.push({ workflow: fixtures.workflow, fixture });
  }
  let failed = 0;
  for (const { workflow, fixture } of cases) {
    const { differences, durationMs } = await replay(workflow, fixture, loaded.workflows);
    const label = `${workflow.name} › ${fixture.name}`;
    if (differences.length === 0) {
      io.out(`${paint(io, 'green', 'pass')} ${label} (${durationMs} ms, replayed)\n`);
    } else {
      failed++;
      const count = `${differences.length} difference${differences.length === 1 ? '' : 's'}`;
      io.out(`${paint(io, 'red', 'FAIL')} ${label}: ${count}\n${formatDifferences(differences)}`);
    }
  }
  io.out(`${cases.length - failed} passed, ${failed} failed\n`);
  return failed === 0 ? EXIT.ok : EXIT.failure;
}

/** Replays one fixture: its differences, or why it did not run. */
export async function replay(
  workflow: WorkflowDefinition,
  fixture: Fixture,
  workflows: readonly WorkflowDefinition[],
): Promise<{ differences: Difference[]; durationMs: number }> {
  const { result, differences } = await replayFixture(workflow, fixture, {
    environment: process.env,
    resolveWorkflow: (name) => workflows.find((w) => w.name === name),
  });
  return { differences, durationMs: result.duration_ms };
}
