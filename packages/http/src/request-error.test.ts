import { describe, expect, it } from 'vitest';
import { errorFromRequest } from './request-error.js';
import { ConflictError } from '@weft/core';

const failure = (keyword: string, instancePath: string, params: Record<string, unknown> = {}) => ({
  validation: [{ keyword, instancePath, params, message: `must pass ${keyword}` }],
  validationContext: 'body',
});

describe('errorFromRequest', () => {
  it('keeps a WeftError as it is', () => {
    const error = new ConflictError('taken', {});
    expect(errorFromRequest(error)).toBe(error);
  });

  it('names the missing field with its path', () => {
    const error = errorFromRequest(failure('required', '/input', { missingProperty: 'text' }));
    expect(error.code).toBe('VALIDATION');
    expect(error.message).toBe('input.text is required');
    expect(error.details).toEqual({ field: 'input.text', constraint: 'required' });
  });

  it('names an unknown field and unescapes JSON pointer segments', () => {
    const error = errorFromRequest(
      failure('additionalProperties', '/a~1b', { additionalProperty: 'x' }),
    );
    expect(error.message).toBe('a/b.x is not a known field');
  });

  it('prefixes fields outside the body with where they are', () => {
    const error = errorFromRequest({
      ...failure('maximum', '/limit'),
      validationContext: 'querystring',
    });
    expect(error.message).toBe('querystring limit must pass maximum');
    expect(error.details).toEqual({ field: 'limit', constraint: 'maximum' });
  });

  it('maps framework body errors to their codes', () => {
    expect(errorFromRequest({ code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }).code).toBe(
      'PAYLOAD_TOO_LARGE',
    );
    const media = errorFromRequest(
      { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 },
      { mediaTypes: ['application/json', 'application/yaml'] },
    );
    expect(media.message).toBe('send the body as application/json or application/yaml');
    expect(
      errorFromRequest({ code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400 }).details,
    ).toEqual({ field: 'body', constraint: 'syntax' });
  });

  it('turns an unknown exception into an INTERNAL_ERROR', () => {
    expect(errorFromRequest(new TypeError('boom')).code).toBe('INTERNAL_ERROR');
    expect(errorFromRequest({ statusCode: 404, message: 'no' }).code).toBe('NOT_FOUND');
  });
});
