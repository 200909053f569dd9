import { WeftError } from '@weft/core';
import type { WorkflowDefinition } from '@weft/engine';
import type { Weft } from '@weft/sdk';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';

/** Which workflows of the file `weft workflow run` runs: `--all`, `--workflow NAME` or the only one. */
export function select(
  workflows: WorkflowDefinition[],
  flags: { all?: boolean; workflow?: string },
): WorkflowDefinition[] | string {
  if (flags.all) return workflows;
  if (flags.workflow !== undefined) {
    const match = workflows.find((w) => w.name === flags.workflow);
    return match
      ? [match]
      : `no workflow named "${flags.workflow}"; the file has ${workflows.map((w) => w.name).join(', ')}`;
  }
  if (workflows.length === 1) return workflows;
  return `the file has ${workflows.length} workflows (${workflows.map((w) => w.name).join(', ')}): pick one with --workflow NAME, or --all`;
}

/** `--async`: starts each run on the server and prints its pending record(s). */
export async function startAsync(
  io: Io,
  weft: Weft,
  selected: WorkflowDefinition[],
  flags: { all?: boolean; input: Record<string, unknown> },
): Promise<number> {
  const records = [];
  try {
    for (const workflow of selected)
      records.push(await weft.executeAsync(workflow.name, flags.input));
  } catch (error) {
    io.err(`weft: ${(error as Error).message}\n`);
    return error instanceof WeftError && error.code === 'VALIDATION' ? EXIT.invalid : EXIT.failure;
  } finally {
    await weft.close();
  }
  io.out(`${JSON.stringify(flags.all ? records : records[0], null, 2)}\n`);
  return EXIT.ok;
}
