import type { FastifyInstance } from 'fastify';
import { ensureErrorSchema, errorHandler } from '@weft/http';
import { compileRegistryOptions, type RegistryOptions } from '../options.js';
import { RegistryService } from '../service.js';
import { installBodyParsers } from './content.js';
import { registerKeyRoutes } from './routes-keys.js';
import { registerReadRoutes } from './routes-read.js';
import { registerWriteRoutes } from './routes-write.js';

/** The registry takes definitions as JSON or YAML: a body in another media type is told both. */
const MEDIA_TYPES = ['application/json', 'application/yaml'];

/**
 * The registry as a Fastify plugin: every route (docs/registry.md#endpoints) plus keys and analytics, with
 * its own body parsers (JSON and YAML, size-limited) and error bodies (docs/protocol.md#error-object). Register it on a
 * Fastify instance (with @fastify/swagger registered first to get the OpenAPI document).
 */
export function registryPlugin(options: RegistryOptions) {
  const compiled = compileRegistryOptions(options);
  const service = new RegistryService(compiled);
  return async function registry(app: FastifyInstance): Promise<void> {
    ensureErrorSchema(app);
    installBodyParsers(app, compiled.bodyLimit);
    app.setErrorHandler(errorHandler({ mediaTypes: MEDIA_TYPES, bodyLimit: compiled.bodyLimit }));
    registerReadRoutes(app, service);
    registerWriteRoutes(app, service);
    registerKeyRoutes(app, service);
    if (compiled.cacheTtlMs > 0) await service.watchOtherProcesses();
    app.addHook('onClose', () => service.close());
  };
}
