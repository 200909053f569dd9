import { createHash } from 'node:crypto';
import semver from 'semver';
import { ValidationError, type NewRegistration, type RouterRegistration } from '@weft/core';
import type { CompiledRouterOptions } from './options.js';
import { egressRefusal } from './egress.js';

/**
 * Checks what the schema cannot of a record (docs/router.md#registration) (semver `version`, absolute http(s) URLs
 * without credentials, hosts allowed by the egress policy) and fills the defaults:
 * `health_check_url` is `{url}/healthz`, `metadata.instance_id` is derived from the URL.
 * Throws `VALIDATION` naming the field.
 */
export async function checkRegistration(
  record: RouterRegistration,
  options: CompiledRouterOptions,
  now: number,
): Promise<NewRegistration> {
  if (semver.valid(record.version) === null) {
    throw invalid(
      'version',
      'semver',
      `version "${clip(record.version)}" is not a semantic version such as 1.2.0`,
    );
  }
  const url = await checkUrl('url', record.url, options);
  const base = url.toString().replace(/\/+$/, '');
  const health = record.health_check_url
    ? (await checkUrl('health_check_url', record.health_check_url, options)).toString()
    : `${base}/healthz`;
  const metadata = record.metadata ?? {};
  const instanceId =
    metadata.instance_id ?? `i-${createHash('sha256').update(base).digest('hex').slice(0, 16)}`;
  return {
    plugin_slug: record.plugin_slug,
    instance_id: instanceId,
    version: record.version,
    url: base,
    actions: record.actions,
    health_check_url: health,
    region: metadata.region ?? null,
    metadata: { ...metadata, instance_id: instanceId },
    at: new Date(now).toISOString(),
    check_at: now,
  };
}

async function checkUrl(field: string, text: string, options: CompiledRouterOptions): Promise<URL> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(
      field,
      'url',
      `${field} "${clip(text)}" is not an absolute URL such as http://10.0.0.5:8000`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalid(field, 'url', `${field} must be an http:// or https:// URL, not ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw invalid(field, 'no_credentials', `${field} must not carry credentials (user:password@)`);
  }
  if (url.search !== '' || url.hash !== '') {
    throw invalid(field, 'no_query', `${field} must not have a query string or fragment`);
  }
  const refusal = await egressRefusal(options.egress, url.hostname);
  if (refusal !== undefined) throw invalid(field, 'egress', `${field}: ${refusal}`);
  return url;
}

function invalid(field: string, constraint: string, message: string): ValidationError {
  return new ValidationError(message, { field, constraint });
}

function clip(text: string): string {
  return text.length > 100 ? `${text.slice(0, 100)}...` : text;
}
