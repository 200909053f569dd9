import {
  noPluginUsage,
  type CompiledOptions,
  type PluginUsage,
  type RegistryStore,
} from '@weft/core';
import { Authenticator, type Authenticate } from '@weft/identity';
import type { AgentDefinitionCheck } from './agent-kind.js';
import type { RegistryClock } from './rules/clock.js';

/** Options of the registry. */
export interface RegistryOptions {
  /** Where plugins, versions and keys live. */
  store: RegistryStore;
  /**
   * Resolves a bearer credential to its principal. Default: the store's API keys alone (the
   * server passes its one authenticator, which also knows identity-provider tokens).
   */
  authenticate?: Authenticate | undefined;
  /** Time source (tests move it to cross the unpublish window). Default: the system clock. */
  clock?: RegistryClock | undefined;
  /** Which active workflows use a version; default: none (until the runtime exists). */
  usage?: PluginUsage | undefined;
  /** Private registry: every read needs a key too. Default false. */
  private?: boolean | undefined;
  /** Largest request body in bytes; larger ones get 413 before being read whole. Default 1 MiB. */
  bodyLimit?: number | undefined;
  /** Hours after publication during which a deprecated version may be unpublished. Default 72. */
  unpublishWindowHours?: number | undefined;
  /** Base of absolute URLs (`schema_url`, `url`); default: from the request's Host. */
  publicUrl?: string | undefined;
  /**
   * Search and detail answers are cached until a plugin change makes them stale (this process's
   * at once; another process's on the same PostgreSQL database as soon as its announcement
   * arrives); this bounds, in ms, how long a missed announcement, and download counts in search
   * pages, may go unseen, plus the read that replaces an expired answer, which is served
   * meanwhile for up to one more time to live. Default 10,000; 0: no cache.
   */
  cacheTtlMs?: number | undefined;
  /**
   * Schema downloads are counted in memory and written together every this many ms (one
   * transaction per interval; a crash loses at most one interval's counts). Default 1,000;
   * 0: each download is written before its answer.
   */
  downloadFlushMs?: number | undefined;
  /** Most cached answers. Default 10,000. */
  cacheSize?: number | undefined;
  /**
   * Checks agent definitions (a body with a top-level `agent`), which are then stored with kind
   * `agent`. Default: none, and agent definitions are refused (`VALIDATION`).
   */
  agents?: AgentDefinitionCheck | undefined;
  /**
   * Called after a change of this process to a slug is committed, before its answer is sent
   * (the server refreshes the agents it resolves from the registry).
   */
  onChange?: ((slug: string) => Promise<void> | void) | undefined;
}

/** Default body limit: 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** The defaults of {@link RegistryOptions}: each field here is never undefined once compiled. */
export const REGISTRY_DEFAULTS = {
  clock: { now: () => Date.now() },
  usage: noPluginUsage,
  private: false,
  bodyLimit: DEFAULT_BODY_LIMIT,
  unpublishWindowHours: 72,
  cacheTtlMs: 10_000,
  cacheSize: 10_000,
  downloadFlushMs: 1000,
} satisfies Partial<RegistryOptions>;

/** {@link RegistryOptions} with every default filled in. */
export type CompiledRegistryOptions = CompiledOptions<
  Omit<RegistryOptions, 'unpublishWindowHours'>,
  Omit<typeof REGISTRY_DEFAULTS, 'unpublishWindowHours'>,
  {
    /** Default: the store's API keys alone. */
    authenticate: Authenticate;
    /** `unpublishWindowHours` in ms. */
    unpublishWindowMs: number;
  }
>;

/** Fills the defaults of {@link RegistryOptions} once. */
export function compileRegistryOptions(options: RegistryOptions): CompiledRegistryOptions {
  const d = REGISTRY_DEFAULTS;
  return {
    store: options.store,
    authenticate: options.authenticate ?? new Authenticator({ keys: options.store }).authenticate,
    clock: options.clock ?? d.clock,
    usage: options.usage ?? d.usage,
    private: options.private ?? d.private,
    bodyLimit: options.bodyLimit ?? d.bodyLimit,
    unpublishWindowMs: (options.unpublishWindowHours ?? d.unpublishWindowHours) * 3_600_000,
    publicUrl: options.publicUrl?.replace(/\/+$/, ''),
    cacheTtlMs: options.cacheTtlMs ?? d.cacheTtlMs,
    cacheSize: options.cacheSize ?? d.cacheSize,
    downloadFlushMs: options.downloadFlushMs ?? d.downloadFlushMs,
    agents: options.agents,
    onChange: options.onChange,
  };
}
