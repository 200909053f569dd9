import { assertJsonTextDepth, ValidationError } from '@weft/core';
import { parseAction } from '../dispatch.js';

/** What `POST /execute` needs of its body: where to route it and the bytes to send on. */
export interface ExecuteCall {
  plugin: string;
  name: string;
  /** The body as received, or re-encoded when the action had to be qualified. */
  body: Buffer | string;
}

/** The longest `action` (the limit of `ExecuteRequest` in @weft/core). */
const MAX_ACTION = 256;

/**
 * Reads the raw body of `POST /execute` (docs/protocol.md#action-calls) without the framework's
 * parse, schema pass and re-encoding: one `JSON.parse` and a check of the shape `ExecuteRequest`
 * describes (an object of exactly `action`, a string of 1 to 256 characters, `input`, an
 * object, and optionally `runtime`, an object the connector service checks), so that bad input
 * still gets the same `VALIDATION` error object naming the field. The
 * bytes are sent on as they came; only a bare `<action>` on `/{plugin_slug}/execute` is
 * re-encoded with its plugin, as the instance expects `<plugin>.<action>`.
 */
export function readExecuteBody(raw: unknown, pathSlug?: string): ExecuteCall {
  if (!Buffer.isBuffer(raw)) {
    throw new ValidationError('send the body as application/json', {
      field: 'content-type',
      constraint: 'media_type',
    });
  }
  const text = raw.toString('utf8');
  assertJsonTextDepth(text);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ValidationError(
      raw.length === 0
        ? 'the body is empty: send {"action": "<plugin>.<action>", "input": {...}}'
        : `the body is not valid JSON (${(error as Error).message})`,
      { field: 'body', constraint: 'syntax' },
    );
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ValidationError('body must be object', { field: 'body', constraint: 'type' });
  }
  const record = json as Record<string, unknown>;
  for (const key in record) {
    if (key !== 'action' && key !== 'input' && key !== 'runtime') {
      throw new ValidationError(`${key.slice(0, 100)} is not a known field`, {
        field: key.slice(0, 100),
        constraint: 'additionalProperties',
      });
    }
  }
  const { action, input, runtime } = record;
  if (action === undefined) {
    throw new ValidationError('action is required', { field: 'action', constraint: 'required' });
  }
  if (input === undefined) {
    throw new ValidationError('input is required', { field: 'input', constraint: 'required' });
  }
  if (typeof action !== 'string') {
    throw new ValidationError('action must be string', { field: 'action', constraint: 'type' });
  }
  if (action.length < 1 || action.length > MAX_ACTION) {
    throw new ValidationError(`action must be 1 to ${MAX_ACTION} characters long`, {
      field: 'action',
      constraint: action.length < 1 ? 'minLength' : 'maxLength',
    });
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ValidationError('input must be object', { field: 'input', constraint: 'type' });
  }
  if (
    runtime !== undefined &&
    (typeof runtime !== 'object' || runtime === null || Array.isArray(runtime))
  ) {
    throw new ValidationError('runtime must be object', { field: 'runtime', constraint: 'type' });
  }
  const { plugin, name } = parseAction(action, pathSlug);
  // On /{plugin_slug}/execute a bare <action> is qualified for the instance.
  const qualified = action.length === plugin.length + 1 + name.length;
  return {
    plugin,
    name,
    body: qualified
      ? raw
      : JSON.stringify({
          action: `${plugin}.${name}`,
          input,
          ...(runtime !== undefined ? { runtime } : {}),
        }),
  };
}
