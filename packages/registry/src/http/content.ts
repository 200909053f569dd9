import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ValidationError } from '@weft/core';
import { parseDefinitionBytes, type DefinitionFormat } from '../definition/parse.js';
import { problemsError } from '../prepare-version.js';
import type { Submission } from '../service.js';

const JSON_TYPES = ['application/json'];
const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

const submissions = new WeakMap<FastifyRequest, Submission>();

/**
 * Replaces the body parsers of a scope: JSON and YAML bodies are read as bytes (up to the
 * limit; a larger body is refused with 413 before it is read whole), parsed with the hardened
 * parser, and kept as exact bytes for publication.
 */
export function installBodyParsers(app: FastifyInstance, bodyLimit: number): void {
  app.removeAllContentTypeParsers();
  const add = (types: string[], format: DefinitionFormat) =>
    app.addContentTypeParser(types, { parseAs: 'buffer', bodyLimit }, (request, body, done) => {
      const bytes = new Uint8Array(body as Buffer);
      const parsed = parseDefinitionBytes(bytes, format);
      if (!parsed.ok) {
        done(problemsError(parsed.problems), undefined);
        return;
      }
      submissions.set(request, { bytes, format, parsed: parsed.value });
      done(null, parsed.value);
    });
  add(JSON_TYPES, 'json');
  add(YAML_TYPES, 'yaml');
}

/** The exact bytes of the request body, for publication. */
export function submissionOf(request: FastifyRequest): Submission {
  const submission = submissions.get(request);
  if (!submission) {
    throw new ValidationError(
      'send the plugin definition as the body (application/json or application/yaml)',
      {
        field: 'body',
        constraint: 'required',
      },
    );
  }
  return submission;
}

/** Parses `?dry_run=`: true, false, 1, 0 or absent. */
export function dryRunOf(request: FastifyRequest): boolean {
  const value = (request.query as Record<string, unknown> | undefined)?.['dry_run'];
  if (value === undefined || value === 'false' || value === '0') return false;
  if (value === '' || value === 'true' || value === '1') return true;
  throw new ValidationError('dry_run must be true or false', {
    field: 'dry_run',
    constraint: 'boolean',
  });
}
