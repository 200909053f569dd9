import { BackendError, ValidationError, type Clock, type WeftError } from '@weft/core';
import type { HttpEgress } from '../invoker/options.js';
import type { ActionRun } from './action-run.js';
import { bandwidthOf, TokenBucket } from './bandwidth.js';
import { remoteError } from './remote-error.js';
import { badAnswer, sendRequest, type SendLimits } from './http-transport.js';
import { connectorScope, renderDeep, renderMap, renderUrl } from './templates.js';

/**
 * Runs an `http` action. With a declarative `request`, sends it (templated on the input) and
 * answers its JSON body; otherwise calls the connector service at `connector.base_url`:
 * `POST {base_url}/execute` with `{action: "<plugin>.<action>", input}` (docs/protocol.md#action-calls, docs/protocol.md#connector-services).
 * With `egress`, a request to a refused address is `VALIDATION` and is never sent. The bytes
 * of the request body sent and the answer body read share one token bucket of the call's
 * bandwidth ({@link bandwidthOf}), paced on `clock`.
 */
export function runHttp(run: ActionRun, options: HttpRunOptions): Promise<unknown> {
  const { maxBytes, egress, clock } = options;
  const bucket = new TokenBucket(bandwidthOf(run), clock);
  const request = run.action?.definition.request;
  return request
    ? runDeclarative(run, { maxBytes, egress, bucket, field: 'request.url' })
    : runConnectorService(run, { maxBytes, egress, bucket, field: 'connector.base_url' });
}

/** What the invoker gives the `http` runner. */
export interface HttpRunOptions {
  /** Largest answer body, in bytes. */
  readonly maxBytes: number;
  /** Where requests may go; none: anywhere, with Node's fetch. */
  readonly egress: HttpEgress | undefined;
  /** The clock bandwidth waits sleep on. */
  readonly clock: Clock;
}

async function runConnectorService(run: ActionRun, limits: SendLimits): Promise<unknown> {
  const { connector, call, input, context } = run;
  const base = connector.definition.connector.base_url ?? '';
  const url = `${base.replace(/\/+$/, '')}/execute`;
  const headers = renderMap(connector.definition.connector.headers, connectorScope(input, context));
  const body = JSON.stringify({ action: call, input });
  const answer = await sendRequest(url, { method: 'POST', headers, body }, run, limits);
  const json = answer.json;
  if (typeof json === 'object' && json !== null && !Array.isArray(json)) {
    const record = json as Record<string, unknown>;
    if (record['status'] === 'error') throw remoteError(record, run);
    if (record['status'] === 'success' && answer.status >= 200 && answer.status < 300) {
      return Object.hasOwn(record, 'data') ? record['data'] : {};
    }
  }
  if (answer.status < 200 || answer.status >= 300) throw badAnswer(run, url, answer, 'an error');
  if (json === undefined) throw badAnswer(run, url, answer, 'a body that is not JSON');
  throw badAnswer(run, url, answer, 'a body with neither status "success" nor "error"');
}

async function runDeclarative(run: ActionRun, limits: SendLimits): Promise<unknown> {
  const { connector, action, input, context } = run;
  const request = action!.definition.request!;
  const scope = connectorScope(input, context);
  const url = buildUrl(run, renderUrl(request.url, scope), renderMap(request.query, scope));
  const headers = {
    ...renderMap(connector.definition.connector.headers, scope),
    ...renderMap(request.headers, scope),
  };
  const rendered = request.body === undefined ? undefined : renderDeep(request.body, scope);
  const body =
    rendered === undefined || typeof rendered === 'string' ? rendered : JSON.stringify(rendered);
  const method = request.method ?? (body === undefined ? 'GET' : 'POST');
  const answer = await sendRequest(
    url,
    { method, headers, ...(body !== undefined ? { body } : {}) },
    run,
    limits,
  );
  if (answer.status < 200 || answer.status >= 300) throw badAnswer(run, url, answer, 'an error');
  if (answer.text.trim() === '') return {};
  if (answer.json === undefined) throw badAnswer(run, url, answer, 'a body that is not JSON');
  return answer.json;
}

/** The absolute request URL: relative ones go under `base_url`; only http(s) is allowed. */
function buildUrl(run: ActionRun, target: string, query: Record<string, string>): string {
  const base = run.connector.definition.connector.base_url;
  let url: URL;
  try {
    url = /^[a-z][a-z0-9+.-]*:/i.test(target)
      ? new URL(target)
      : new URL(target.replace(/^\/+/, ''), `${(base ?? '').replace(/\/*$/, '/')}`);
  } catch {
    throw invalidUrl(run, target);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidUrl(run, target);
  for (const [key, value] of Object.entries(query)) url.searchParams.append(key, value);
  return url.toString();
}

function invalidUrl(run: ActionRun, target: string): WeftError {
  const shown = target.length > 200 ? `${target.slice(0, 200)}...` : target;
  if (run.connector.definition.connector.base_url === undefined && !target.includes(':')) {
    return new BackendError(`${run.call}: "${shown}" is not an absolute URL`, {
      backend: run.connector.name,
      original_error: 'relative url without base_url',
    });
  }
  return new ValidationError(`${run.call}: "${shown}" is not an http(s) URL`, {
    field: 'request.url',
    constraint: 'url',
  });
}
