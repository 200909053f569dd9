import type { WorkflowDefinition } from '@weft/engine';
import type { Io } from '../io.js';

/**
 * `--stream` of a workflow that streams no events (`execution.streaming.enabled: false`): says
 * so once on stderr, rather than printing nothing without a word. The run itself is unaffected.
 */
export function noteStreamingOff(io: Io, workflow: WorkflowDefinition): void {
  if (workflow.execution?.streaming?.enabled !== false) return;
  io.err(
    `weft: workflow "${workflow.name}" disables streaming (execution.streaming.enabled: false): --stream prints no events\n`,
  );
}
