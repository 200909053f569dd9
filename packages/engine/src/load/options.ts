import {
  CONTENT_CHECKS,
  LEXICAL_DETECTORS,
  MAX_NESTING_DEPTH,
  type ContentCheck,
  type DetectorNames,
} from '@weft/core';

/** Options of the workflow loader. */
export interface LoadOptions {
  /** File name used in diagnostics (positions read `file:line:column`). */
  file?: string;
  /** Largest accepted file in bytes. Default 1 MiB. */
  maxFileSize?: number;
  /** Deepest nesting of maps and sequences. Default 64. */
  maxDepth?: number;
  /** Most alias expansions (`*anchor`) per file: defends against alias bombs. Default 100. */
  maxAliasCount?: number;
  /** Keep only the workflow of this name (`--workflow NAME`); an unknown name is an error. */
  workflow?: string;
  /**
   * Names of workflows known elsewhere (deployed on a server): a subworkflow step naming one is
   * not reported as unknown.
   */
  knownWorkflows?: readonly string[];
  /**
   * The detector names the process that runs the workflows offers per content check, besides
   * `default` and the lexical ones (`LEXICAL_DETECTORS`), e.g. `{toxicity: ['moderation']}`: a
   * workflow's `guardrails.detectors` naming another is an error. Default: none besides those.
   * `any`: not checked here, because another process runs them (a CLI deploying to a server).
   */
  detectors?: DetectorNames | 'any';
}

/** {@link LoadOptions} with every default filled in. */
export interface CompiledLoadOptions {
  file: string | undefined;
  maxFileSize: number;
  maxDepth: number;
  maxAliasCount: number;
  workflow: string | undefined;
  knownWorkflows: ReadonlySet<string>;
  /** Every detector name a workflow may choose per check, `default` included; undefined: any. */
  detectors: ReadonlyMap<ContentCheck, ReadonlySet<string>> | undefined;
}

/** Default largest workflow file: 1 MiB. */
export const DEFAULT_MAX_FILE_SIZE = 1024 * 1024;
/** Default deepest nesting of maps and sequences (the one limit of every input: core's). */
export const DEFAULT_MAX_DEPTH = MAX_NESTING_DEPTH;
/** Default most alias expansions per file. */
export const DEFAULT_MAX_ALIAS_COUNT = 100;

/** Fills the defaults of {@link LoadOptions} once. */
export function compileLoadOptions(options: LoadOptions = {}): CompiledLoadOptions {
  return {
    file: options.file,
    maxFileSize: options.maxFileSize ?? DEFAULT_MAX_FILE_SIZE,
    maxDepth: options.maxDepth ?? DEFAULT_MAX_DEPTH,
    maxAliasCount: options.maxAliasCount ?? DEFAULT_MAX_ALIAS_COUNT,
    workflow: options.workflow,
    knownWorkflows: new Set(options.knownWorkflows ?? []),
    detectors: detectorNames(options.detectors),
  };
}

function detectorNames(
  extra: DetectorNames | 'any' | undefined,
): ReadonlyMap<ContentCheck, ReadonlySet<string>> | undefined {
  if (extra === 'any') return undefined;
  return new Map(
    CONTENT_CHECKS.map((check) => [
      check,
      new Set(['default', LEXICAL_DETECTORS[check], ...(extra?.[check] ?? [])]),
    ]),
  );
}
