import type { DetectorNames } from '@weft/core';
import { loadWorkflowSource, type Diagnostic, type WorkflowDefinition } from '@weft/engine';
import { readInputFile } from './read-input.js';

/** Options shared by the commands that load workflow files. */
export interface LoadFlags {
  workflow?: string;
  maxFileSize: number;
  /**
   * The guardrail detectors the runs may choose by name (`any`: not checked here, a server
   * runs them). Default: the lexical ones.
   */
  detectors?: DetectorNames | 'any';
}

/** One loaded file. */
export interface LoadedFile {
  file: string;
  ok: boolean;
  workflows: WorkflowDefinition[];
  diagnostics: Diagnostic[];
}

/** Reads and loads a workflow file, turning I/O failures into diagnostics. */
export async function loadFile(file: string, flags: LoadFlags): Promise<LoadedFile> {
  const read = await readInputFile(file, flags.maxFileSize);
  if (!read.ok) return { file, ok: false, workflows: [], diagnostics: [read.diagnostic] };
  const result = loadWorkflowSource(read.bytes, {
    file,
    maxFileSize: flags.maxFileSize,
    ...(flags.workflow !== undefined ? { workflow: flags.workflow } : {}),
    ...(flags.detectors !== undefined ? { detectors: flags.detectors } : {}),
  });
  return { file, ...result };
}
