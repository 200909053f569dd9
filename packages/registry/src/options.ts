import { noPluginUsage, type PluginUsage, type RegistryStore } from '@weft/core';
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
  authenticate?: Authenticate;
  /** Time source (tests move it to cross the unpublish window). Default: the system clock. */
  clock?: RegistryClock;
  /** Which active workflows use a version; default: none (until the runtime exists). */
  usage?: PluginUsage;
  /** Private registry: every read needs a key too. Default false. */
  private?: boolean;
  /** Largest request body in bytes; larger ones get 413 before being read whole. Default 1 MiB. */
  bodyLimit?: number;
  /** Hours after publication during which a deprecated version may be unpublished. Default 72. */
  unpublishWindowHours?: number;
  /** Base of absolute URLs (`schema_url`, `url`); default: from the request's Host. */
  publicUrl?: string;
  /**
   * Search and detail answers are cached until a plugin change makes them stale (this process's
   * at once; another process's on the same PostgreSQL database as soon as its announcement
   * arrives); this bounds, in ms, how long a missed announcement, and download counts in search
   * pages, may go unseen. Default 10,000; 0: no cache.
   */
  cacheTtlMs?: number;
  /**
   * Schema downloads are counted in memory and written together every this many ms (one
   * transaction per interval; a crash loses at most one interval's counts). Default 1,000;
   * 0: each download is written before its answer.
   */
  downloadFlushMs?: number;
  /** Most cached answers. Default 10,000. */
  cacheSize?: number;
  /**
   * Checks agent definitions (a body with a top-level `agent`), which are then stored with kind
   * `agent`. Default: none, and agent definitions are refused (`VALIDATION`).
   */
  agents?: AgentDefinitionCheck;
  /**
   * Called after a change of this process to a slug is committed, before its answer is sent
   * (the server refreshes the agents it resolves from the registry).
   */
  onChange?: (slug: string) => Promise<void> | void;
}

/** {@link RegistryOptions} with every default filled in. */
export interface CompiledRegistryOptions {
  store: RegistryStore;
  authenticate: Authenticate;
  clock: RegistryClock;
  usage: PluginUsage;
  private: boolean;
  bodyLimit: number;
  unpublishWindowMs: number;
  publicUrl: string | undefined;
  cacheTtlMs: number;
  cacheSize: number;
  downloadFlushMs: number;
  agents: AgentDefinitionCheck | undefined;
  onChange: ((slug: string) => Promise<void> | void) | undefined;
}

/** Default body limit: 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** Fills the defaults of {@link RegistryOptions} once. */
export function compileRegistryOptions(options: RegistryOptions): CompiledRegistryOptions {
  return {
    store: options.store,
    authenticate: options.authenticate ?? new Authenticator({ keys: options.store }).authenticate,
    clock: options.clock ?? { now: () => Date.now() },
    usage: options.usage ?? noPluginUsage,
    private: options.private ?? false,
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    unpublishWindowMs: (options.unpublishWindowHours ?? 72) * 3_600_000,
    publicUrl: options.publicUrl?.replace(/\/+$/, ''),
    cacheTtlMs: options.cacheTtlMs ?? 10_000,
    cacheSize: options.cacheSize ?? 10_000,
    downloadFlushMs: options.downloadFlushMs ?? 1000,
    agents: options.agents,
    onChange: options.onChange,
  };
}
