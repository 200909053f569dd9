import { resolve } from 'node:path';

/** Settings of `weft server`, from flags and environment. */
export interface ServerOptions {
  /** TCP port; 0 picks a free one. Default 8080. */
  port?: number;
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /** Directory of the embedded SQLite file. Default ./.weft. */
  dataDir?: string;
  /** `postgres://...`: use PostgreSQL instead of SQLite. */
  databaseUrl?: string;
  /** PostgreSQL schema (default public); tests use one per run. */
  databaseSchema?: string;
  /** Private registry: every read needs a key. Default false. */
  private?: boolean;
  /** Base of absolute URLs in answers; default: from each request's Host. */
  publicUrl?: string;
  /** pino log level. Default info. */
  logLevel?: string;
  /** Largest request body in bytes. Default 1 MiB. */
  bodyLimit?: number;
  /** Cache time of search and detail answers in ms (0: off). Default 2000. */
  cacheTtlMs?: number;
}

/** {@link ServerOptions} with defaults filled in. */
export interface CompiledServerOptions {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  databaseSchema: string | undefined;
  private: boolean;
  publicUrl: string | undefined;
  logLevel: string;
  bodyLimit: number | undefined;
  cacheTtlMs: number | undefined;
}

/** Fills the defaults of {@link ServerOptions} once. */
export function compileServerOptions(options: ServerOptions = {}): CompiledServerOptions {
  return {
    port: options.port ?? 8080,
    host: options.host ?? '127.0.0.1',
    dataDir: resolve(options.dataDir ?? './.weft'),
    databaseUrl: options.databaseUrl || undefined,
    databaseSchema: options.databaseSchema,
    private: options.private ?? false,
    publicUrl: options.publicUrl,
    logLevel: options.logLevel ?? 'info',
    bodyLimit: options.bodyLimit,
    cacheTtlMs: options.cacheTtlMs,
  };
}

/** True for `true`, `1`, `yes`, `on` (any case). */
export function envFlag(value: string | undefined): boolean {
  return value !== undefined && /^(true|1|yes|on)$/i.test(value.trim());
}

/** Reads the environment variables `weft server` understands; flags given explicitly win. */
export function serverOptionsFromEnv(env: NodeJS.ProcessEnv): ServerOptions {
  return {
    ...(env['DATABASE_URL'] ? { databaseUrl: env['DATABASE_URL'] } : {}),
    ...(env['WEFT_REGISTRY_PRIVATE'] !== undefined
      ? { private: envFlag(env['WEFT_REGISTRY_PRIVATE']) }
      : {}),
    ...(env['WEFT_PUBLIC_URL'] ? { publicUrl: env['WEFT_PUBLIC_URL'] } : {}),
    ...(env['WEFT_LOG_LEVEL'] ? { logLevel: env['WEFT_LOG_LEVEL'] } : {}),
  };
}
