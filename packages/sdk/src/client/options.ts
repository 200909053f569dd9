import { ValidationError, type ExecutionMode, type SecretsProvider } from '@weft/core';
import { checkRouterUrl } from '../invoker/router-invoker.js';
import type { ClientTls } from '../service/router-client.js';

/** Log levels of the SDK's structured logging. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/**
 * Options of {@link Weft} (SPEC.md Appendix B.5, in camelCase: `executionMode` is
 * `execution_mode`, `retryConfig` is `retry_config`, `secretsManager` is `secrets_manager`,
 * `logLevel` is `log_level`, `logFormat` is `log_format`).
 */
export interface WeftOptions {
  /**
   * `local` (default): actions run in this process. `self_hosted`: every action step goes to the
   * router at `routerUrl` (connectors and handlers registered here are not used).
   */
  executionMode?: ExecutionMode;
  /** The router of `self_hosted` mode (`router_url`), e.g. `http://127.0.0.1:8080`. */
  routerUrl?: string;
  /** Client certificate for a router that requires mutual TLS (SPEC.md §5.5). */
  routerTls?: ClientTls;
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
const SUPPORTED_MODES: readonly ExecutionMode[] = ['local', 'self_hosted'];

/** Checks {@link WeftOptions} once. */
export function checkWeftOptions(options: WeftOptions): void {
  const mode = options.executionMode ?? 'local';
  if (!SUPPORTED_MODES.includes(mode)) {
    throw new ValidationError(
      `execution mode "${mode}" is not available yet; use "local" or "self_hosted"`,
      { field: 'executionMode', constraint: 'supported' },
    );
  }
  if (mode === 'self_hosted') checkRouterUrl(options.routerUrl, 'routerUrl');
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
