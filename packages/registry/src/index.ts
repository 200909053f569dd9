export { registryPlugin } from './http/registry-plugin.js';
export { compileRegistryOptions, DEFAULT_BODY_LIMIT } from './options.js';
export type { RegistryOptions, CompiledRegistryOptions } from './options.js';
export { RegistryService } from './service.js';
/** Kept for callers of the registry's former `createKey`: keys are `@weft/identity`'s now. */
export { createApiKey as createKey } from '@weft/identity';
export type { Submission } from './service.js';
/** What a client checks of a definition: also `@weft/registry/definitions`, which loads no Fastify. */
export * from './definitions.js';
export { slugKey } from './rules/names.js';
export { latestVersion, availableVersions } from './rules/versions.js';
export type { RegistryClock } from './rules/clock.js';
export { SEARCH_LIMITS } from './search-query.js';
