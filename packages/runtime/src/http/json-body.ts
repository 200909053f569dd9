import type { FastifyInstance } from 'fastify';
import { depthCheckedJson } from '@weft/core';

/**
 * Replaces a scope's JSON body parser with Fastify's own behind a depth check: a body nested
 * deeper than core's `MAX_NESTING_DEPTH` is refused with `VALIDATION` (400, field `body`, the
 * limit named) from one scan of its text, before parsing and before anything walks it
 * recursively (schema validation, serialising an inline workflow, the workflow loader).
 * Prototype poisoning is refused as by Fastify's defaults.
 */
export function installDepthCheckedJson(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, depthCheckedJson(parse));
}
