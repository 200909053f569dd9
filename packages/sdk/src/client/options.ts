import { ValidationError, type ExecutionMode, type SecretsProvider } from '@weft/core';

/** Log levels of the SDK's structured logging. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/**
 * Options of {@link Weft} (SPEC.md Appendix B.5, in camelCase: `executionMode` is
 * `execution_mode`, `retryConfig` is `retry_config`, `secretsManager` is `secrets_manager`,
 * `logLevel` is `log_level`, `logFormat` is `log_format`).
 */
export interface WeftOptions {
  /** Only `local` runs in this release; the other modes arrive with the server. */
  executionMode?: ExecutionMode;
  /** Default action timeout in seconds (default 120, at most 600). */
  timeout?: number;
  /** Retry policy of steps that set none (default: one attempt). */
  retryConfig?: { maxAttempts?: number; backoff?: 'exponential' | 'fixed'; backoffFactor?: number };
  /** Environment of the run: what `env.*` reads, over the process environment. */
  environment?: Record<string, string>;
  /** Inherit the process environment under `environment` (default true). */
  inheritEnvironment?: boolean;
  /** Where `secrets.*` come from (default: the environment). */
  secretsManager?: SecretsProvider;
  /** Default `info`. */
  logLevel?: LogLevel;
  /** `json` (default) or `text`. */
  logFormat?: 'json' | 'text';
  /** Where log lines go (default: standard error). */
  logDestination?: NodeJS.WritableStream;
}

/** The execution modes this release runs. */
const SUPPORTED_MODES: readonly ExecutionMode[] = ['local'];

/** Checks {@link WeftOptions} once. */
export function checkWeftOptions(options: WeftOptions): void {
  const mode = options.executionMode ?? 'local';
  if (!SUPPORTED_MODES.includes(mode)) {
    throw new ValidationError(`execution mode "${mode}" is not available yet; use "local"`, {
      field: 'executionMode',
      constraint: 'supported',
    });
  }
  const timeout = options.timeout;
  if (timeout !== undefined && (!Number.isInteger(timeout) || timeout < 1 || timeout > 600)) {
    throw new ValidationError(`timeout must be an integer from 1 to 600 seconds, got ${timeout}`, {
      field: 'timeout',
      constraint: 'range',
    });
  }
  const attempts = options.retryConfig?.maxAttempts;
  if (attempts !== undefined && (!Number.isInteger(attempts) || attempts < 1 || attempts > 100)) {
    throw new ValidationError(
      `retryConfig.maxAttempts must be an integer from 1 to 100, got ${attempts}`,
      {
        field: 'retryConfig.maxAttempts',
        constraint: 'range',
      },
    );
  }
}
