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
}

/** {@link LoadOptions} with every default filled in. */
export interface CompiledLoadOptions {
  file: string | undefined;
  maxFileSize: number;
  maxDepth: number;
  maxAliasCount: number;
  workflow: string | undefined;
  knownWorkflows: ReadonlySet<string>;
}

/** Default largest workflow file: 1 MiB. */
export const DEFAULT_MAX_FILE_SIZE = 1024 * 1024;
/** Default deepest nesting of maps and sequences. */
export const DEFAULT_MAX_DEPTH = 64;
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
  };
}
