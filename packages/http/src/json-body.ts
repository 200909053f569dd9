import type { FastifyInstance } from 'fastify';
import { assertJsonTextDepth } from '@weft/core';

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

/** The callback a JSON body parser answers with (Fastify's). */
export type JsonParserDone = (error: Error | null, body?: unknown) => void;

/**
 * Wraps a JSON text parser (Fastify's default one, with its prototype-poisoning checks) so that
 * the text's nesting is checked first ({@link assertJsonTextDepth}): a body too deep is refused
 * before anything parses or walks it. The parser may answer through `done` or, as Fastify's
 * types allow, with a promise: either way `done` is called once.
 */
export function depthCheckedJson<R>(
  parse: (request: R, text: string, done: JsonParserDone) => void | Promise<unknown>,
): (request: R, text: string, done: JsonParserDone) => void {
  return (request, text, done) => {
    try {
      assertJsonTextDepth(text);
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    const answer = parse(request, text, done);
    if (answer instanceof Promise) {
      answer.then(
        (body) => done(null, body),
        (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
      );
    }
  };
}
