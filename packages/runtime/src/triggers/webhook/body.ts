import type { IncomingMessage } from 'node:http';
import { PayloadTooLargeError, ValidationError } from '@weft/core';

/** The 413 of a body over `limit` bytes. */
export function tooLarge(limit: number, received?: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`the webhook body is over its maxPayloadSize of ${limit} bytes`, {
    limit,
    ...(received !== undefined ? { received } : {}),
    reason: 'payload_too_large',
  });
}

/**
 * Reads a request body as bytes, counting as it goes: a `Content-Length` over `limit` is refused
 * before reading, and a chunked (or lying) body is refused as soon as it passes `limit`, without
 * buffering the rest.
 */
export function readLimitedBody(stream: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = stream.headers['content-length'];
  if (declared !== undefined) {
    if (!/^\d+$/.test(declared)) {
      return Promise.reject(
        new ValidationError('Content-Length must be a number of bytes', {
          field: 'content-length',
          constraint: 'integer',
        }),
      );
    }
    if (Number(declared) > limit) return Promise.reject(tooLarge(limit, Number(declared)));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) {
        cleanup();
        stream.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      // Most bodies arrive in one chunk: it is the body (a copy only joins several).
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const cleanup = () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
  });
}

/**
 * The payload a webhook hands to its workflow (`trigger.payload`): JSON bodies parsed,
 * form bodies as an object of fields, other bodies as text; an empty body gives the query
 * parameters (GET webhooks).
 */
export function payloadOf(
  body: Buffer,
  contentType: string | undefined,
  query: Record<string, unknown>,
): unknown {
  if (body.length === 0) return { ...query };
  const type = mediaType(contentType);
  const text = body.toString('utf8');
  if (type === 'application/json' || type.endsWith('+json')) {
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new ValidationError(`the webhook body is not valid JSON: ${(error as Error).message}`, {
        field: 'body',
        constraint: 'json',
      });
    }
  }
  if (type === 'application/x-www-form-urlencoded') {
    return Object.fromEntries(new URLSearchParams(text));
  }
  return text;
}

/** The media type of a `Content-Type` (before any parameter), trimmed and in lower case. */
function mediaType(contentType: string | undefined): string {
  if (contentType === undefined) return '';
  // The usual exact value needs no copy.
  if (contentType === 'application/json') return contentType;
  const end = contentType.indexOf(';');
  return (end < 0 ? contentType : contentType.slice(0, end)).trim().toLowerCase();
}
