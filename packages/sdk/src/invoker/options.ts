import { CONNECTOR_DEFAULTS, systemClock, ValidationError, type Clock } from '@weft/core';
import type { LookupFunction } from 'node:net';
import type { Environment } from '../connector/interpolate-env.js';
import type { Sandbox, SandboxOptions } from '../sandbox/index.js';

/**
 * Where `http` connectors may send requests, for a host that must not be made to call its own
 * network (the server's egress policy, `WEFT_EGRESS_ALLOWLIST`). A refused request is
 * `VALIDATION` with `details {field, constraint: "egress"}` and is never sent.
 */
export interface HttpEgress {
  /** Why a request to `url` may not be sent, or `undefined` when it may; asked before connecting. */
  refusal(url: URL): Promise<string | undefined>;
  /**
   * Resolves host names at connect time, checking the address actually connected to (DNS
   * rebinding): a refused one fails with an error whose `code` is `EGRESS_REFUSED`.
   */
  lookup: LookupFunction;
}

/** Options of {@link LocalInvoker}. Nothing is read from the process: pass what you mean. */
export interface LocalInvokerOptions {
  /** Variables for `${VAR}` interpolation in connector definitions. Default: none. */
  environment?: Environment;
  /** Timeout in seconds of actions whose connector gives none. Default 120, at most 600. */
  defaultTimeout?: number;
  /** In-flight calls per connector when the connector gives no `concurrency`. Default 10, at most 100. */
  defaultConcurrency?: number;
  /** Largest command stdout or HTTP answer body, in bytes. Default 10 MiB. */
  maxOutputBytes?: number;
  /** Largest connector definition file, in bytes. Default 1 MiB. */
  maxFileSize?: number;
  /** Where `http` connectors may send requests. Default: anywhere, with Node's fetch. */
  httpEgress?: HttpEgress;
  /**
   * The sandbox `shell` actions run in (docs/workflow-language.md#connector-runtime): one made
   * already, or the options of the one opened at the first shell call. Default: strict, parent
   * group `weft` below this process's own.
   */
  sandbox?: Sandbox | SandboxOptions;
  /**
   * The clock `http` calls wait on for their `network.bandwidth` (tests pass a manual one).
   * Default: the system clock.
   */
  clock?: Clock;
}

/** {@link LocalInvokerOptions} with defaults filled in. */
export interface CompiledInvokerOptions {
  environment: Environment;
  defaultTimeoutSeconds: number;
  defaultConcurrency: number;
  maxOutputBytes: number;
  maxFileSize: number | undefined;
  httpEgress: HttpEgress | undefined;
  sandbox: Sandbox | SandboxOptions;
  clock: Clock;
}

/** Default largest command stdout or HTTP body: 10 MiB. */
export const DEFAULT_MAX_OUTPUT_BYTES = 10 * 1024 * 1024;

/** Fills the defaults of {@link LocalInvokerOptions} once, checking the limits (docs/protocol.md#limits). */
export function compileInvokerOptions(options: LocalInvokerOptions = {}): CompiledInvokerOptions {
  return {
    environment: options.environment ?? {},
    defaultTimeoutSeconds: bounded(
      'defaultTimeout',
      options.defaultTimeout ?? CONNECTOR_DEFAULTS.timeoutSeconds,
      CONNECTOR_DEFAULTS.maxTimeoutSeconds,
    ),
    defaultConcurrency: bounded(
      'defaultConcurrency',
      options.defaultConcurrency ?? CONNECTOR_DEFAULTS.concurrency,
      CONNECTOR_DEFAULTS.maxConcurrency,
    ),
    maxOutputBytes: bounded(
      'maxOutputBytes',
      options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
      Number.MAX_SAFE_INTEGER,
    ),
    maxFileSize: options.maxFileSize,
    httpEgress: options.httpEgress,
    sandbox: options.sandbox ?? {},
    clock: options.clock ?? systemClock,
  };
}

function bounded(field: string, value: number, max: number): number {
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new ValidationError(`${field} must be an integer from 1 to ${max}, got ${value}`, {
      field,
      constraint: 'range',
    });
  }
  return value;
}
