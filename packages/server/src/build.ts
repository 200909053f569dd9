import { LogController, type FastifyInstance } from 'fastify';
import type { PluginUsage, RegistryStore } from '@weft/core';
import { createHttpApp, registryPlugin, type RegistryClock } from '@weft/registry';
import { openStore, type StoreOptions } from '@weft/store';
import { compileServerOptions, type CompiledServerOptions, type ServerOptions } from './config.js';
import { registerHealth } from './health.js';

/** Parts a test or another composition may supply instead of the defaults. */
export interface ServerDependencies {
  /** Use this store instead of opening one from the options (it is not closed by the server). */
  store?: RegistryStore;
  clock?: RegistryClock;
  usage?: PluginUsage;
  /** `false`: no logging (default: pino at the configured level). */
  logger?: boolean;
  /** Adds routes of the caller before the server is sealed (benchmarks add a bare route). */
  routes?: (app: FastifyInstance) => void;
}

/** A built, not yet listening server. */
export interface BuiltServer {
  app: FastifyInstance;
  store: RegistryStore;
  /** `sqlite:/path/weft.db` or the database URL without password. */
  storage: string;
  options: CompiledServerOptions;
  /** Closes the HTTP server, then the store (when the server opened it). */
  close(): Promise<void>;
}

/** Where the options say to store. */
export function storeOptionsOf(options: CompiledServerOptions): StoreOptions {
  return options.databaseUrl
    ? {
        kind: 'postgres',
        url: options.databaseUrl,
        ...(options.databaseSchema ? { schema: options.databaseSchema } : {}),
      }
    : { kind: 'sqlite', dataDir: options.dataDir };
}

/** Builds the platform server: store, registry, health and OpenAPI, on one Fastify instance. */
export async function buildServer(
  options: ServerOptions = {},
  dependencies: ServerDependencies = {},
): Promise<BuiltServer> {
  const compiled = compileServerOptions(options);
  const opened = dependencies.store
    ? { registry: dependencies.store, description: dependencies.store.kind }
    : await openStore(storeOptionsOf(compiled));
  const store = opened.registry;
  const app = await createHttpApp({
    logger: dependencies.logger === false ? false : { level: compiled.logLevel },
    // Per-request lines only at debug level: the default info level logs startup and errors.
    logController: new LogController({
      disableRequestLogging: compiled.logLevel !== 'debug' && compiled.logLevel !== 'trace',
    }),
    ...(compiled.bodyLimit !== undefined ? { bodyLimit: compiled.bodyLimit } : {}),
  });
  registerHealth(app, store);
  await app.register(
    registryPlugin({
      store,
      private: compiled.private,
      ...(compiled.publicUrl ? { publicUrl: compiled.publicUrl } : {}),
      ...(compiled.bodyLimit !== undefined ? { bodyLimit: compiled.bodyLimit } : {}),
      ...(compiled.cacheTtlMs !== undefined ? { cacheTtlMs: compiled.cacheTtlMs } : {}),
      ...(dependencies.clock ? { clock: dependencies.clock } : {}),
      ...(dependencies.usage ? { usage: dependencies.usage } : {}),
    }),
  );
  dependencies.routes?.(app);
  await app.ready();
  return {
    app,
    store,
    storage: opened.description,
    options: compiled,
    close: async () => {
      await app.close();
      if (!dependencies.store) await store.close();
    },
  };
}
