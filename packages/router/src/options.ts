import { randomUUID } from 'node:crypto';
import {
  EgressPolicy,
  systemClock,
  ValidationError,
  type Clock,
  type CompiledOptions,
  type RoutesStore,
} from '@weft/core';

/** Options of the router. Nothing is read from the environment: the server passes settings in. */
export interface RouterOptions {
  /** Where the routing table lives (shared by every server replica on one database). */
  store: RoutesStore;
  /** Bearer token that `POST /register`, `DELETE /register/...` and `GET /routes` require. */
  token?: string | undefined;
  /**
   * Mutual TLS (docs/router.md#protection): every router route requires a client certificate the server's
   * TLS layer verified against its client CA. The server must request client certificates.
   */
  requireClientCert?: boolean | undefined;
  /**
   * Checks the bearer credential of `POST /execute` (the server's API keys and identity-provider
   * tokens); rejects with `UNAUTHORIZED`. The router token is accepted as well.
   */
  authenticate?: ((authorization: string | undefined) => Promise<unknown>) | undefined;
  /**
   * `POST /execute` without any credential, for a router only a private network reaches
   * (`WEFT_ROUTER_OPEN_EXECUTE`). Default false: a call needs a client certificate (mutual TLS),
   * the router token or a credential `authenticate` accepts.
   */
  openExecute?: boolean | undefined;
  /** Milliseconds between two health checks of an instance. Default 10000. */
  healthIntervalMs?: number | undefined;
  /** Timeout of one health check in ms. Default 2000. */
  healthTimeoutMs?: number | undefined;
  /** Consecutive failed checks that remove an instance. Default 3. */
  healthFailures?: number | undefined;
  /** Run the health checker (default true; tests of routes alone turn it off). */
  healthChecks?: boolean | undefined;
  /** CIDRs that may be called even though link-local or metadata (`WEFT_EGRESS_ALLOWLIST`). */
  egressAllowlist?: readonly string[] | undefined;
  /** Longest wait for an instance's answer in ms. Default 120000 (the connector default (docs/protocol.md#limits)), at most 600000. */
  executeTimeoutMs?: number | undefined;
  /** Largest answer accepted from an instance, in bytes. Default 10 MiB. */
  maxResponseBytes?: number | undefined;
  /** Largest request body, in bytes. Default 1 MiB. */
  bodyLimit?: number | undefined;
  /** How often this replica re-reads the routing table written by others, in ms. Default 1000. */
  refreshMs?: number | undefined;
  /** Name of this replica in health-check leases. Default: a random UUID. */
  replicaId?: string | undefined;
  /** Connections kept open per instance. Default 128. */
  connectionsPerInstance?: number | undefined;
  clock?: Clock | undefined;
}

/** The defaults of {@link RouterOptions}: each field here is never undefined once compiled. */
export const ROUTER_DEFAULTS = {
  requireClientCert: false,
  openExecute: false,
  healthIntervalMs: 10_000,
  healthTimeoutMs: 2_000,
  healthFailures: 3,
  healthChecks: true,
  executeTimeoutMs: 120_000,
  maxResponseBytes: 10 * 1024 * 1024,
  bodyLimit: 1024 * 1024,
  refreshMs: 1000,
  connectionsPerInstance: 128,
  clock: systemClock,
} satisfies Partial<RouterOptions>;

/** {@link RouterOptions} with defaults filled in and checked. */
export type CompiledRouterOptions = CompiledOptions<
  Omit<RouterOptions, 'egressAllowlist'>,
  typeof ROUTER_DEFAULTS,
  {
    /** The egress policy the allowlist compiles to. */
    egress: EgressPolicy;
    /** Default: a random UUID. */
    replicaId: string;
  }
>;

/** Fills the defaults of {@link RouterOptions} once; throws `VALIDATION` naming a bad one. */
export function compileRouterOptions(options: RouterOptions): CompiledRouterOptions {
  const token = options.token === undefined || options.token === '' ? undefined : options.token;
  if (token !== undefined && token.length < 16) {
    throw new ValidationError(
      'the router token (WEFT_ROUTER_TOKEN) must be at least 16 characters long',
      {
        field: 'token',
        constraint: 'minLength',
      },
    );
  }
  const requireClientCert = options.requireClientCert ?? ROUTER_DEFAULTS.requireClientCert;
  const openExecute = options.openExecute ?? ROUTER_DEFAULTS.openExecute;
  if (!openExecute && !requireClientCert && token === undefined && !options.authenticate) {
    throw new ValidationError(
      'POST /execute would accept no credential at all: give the router a token, an authenticate function or mutual TLS, or set openExecute for a private network',
      { field: 'openExecute', constraint: 'credential' },
    );
  }
  return {
    store: options.store,
    token,
    requireClientCert,
    authenticate: options.authenticate,
    openExecute,
    healthIntervalMs: integer(
      'healthIntervalMs',
      options.healthIntervalMs,
      ROUTER_DEFAULTS.healthIntervalMs,
      10,
      86_400_000,
    ),
    healthTimeoutMs: integer(
      'healthTimeoutMs',
      options.healthTimeoutMs,
      ROUTER_DEFAULTS.healthTimeoutMs,
      1,
      600_000,
    ),
    healthFailures: integer(
      'healthFailures',
      options.healthFailures,
      ROUTER_DEFAULTS.healthFailures,
      1,
      1000,
    ),
    healthChecks: options.healthChecks ?? ROUTER_DEFAULTS.healthChecks,
    egress: new EgressPolicy(options.egressAllowlist ?? []),
    executeTimeoutMs: integer(
      'executeTimeoutMs',
      options.executeTimeoutMs,
      ROUTER_DEFAULTS.executeTimeoutMs,
      1,
      600_000,
    ),
    maxResponseBytes: integer(
      'maxResponseBytes',
      options.maxResponseBytes,
      ROUTER_DEFAULTS.maxResponseBytes,
      1,
      1024 ** 3,
    ),
    bodyLimit: integer('bodyLimit', options.bodyLimit, ROUTER_DEFAULTS.bodyLimit, 1, 1024 ** 3),
    refreshMs: integer('refreshMs', options.refreshMs, ROUTER_DEFAULTS.refreshMs, 10, 3_600_000),
    replicaId: options.replicaId ?? randomUUID(),
    connectionsPerInstance: integer(
      'connectionsPerInstance',
      options.connectionsPerInstance,
      ROUTER_DEFAULTS.connectionsPerInstance,
      1,
      10_000,
    ),
    clock: options.clock ?? ROUTER_DEFAULTS.clock,
  };
}

function integer(
  field: string,
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < min || v > max) {
    throw new ValidationError(`${field} must be an integer from ${min} to ${max}, got ${v}`, {
      field,
      constraint: 'range',
    });
  }
  return v;
}
