import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { toErrorObject, WeftError, type ErrorObject } from '@weft/core';
import type { CompiledConnector } from '../connector/compile-connector.js';
import type { HttpApi } from '../http-client/http-api.js';

/** What {@link syncPlugins} did with one loaded connector. */
export interface SyncResult {
  /** The plugin slug (the connector name when the definition has no slug). */
  slug: string;
  /** The loaded version. */
  version: string;
  /**
   * `published` (new plugin, POST), `updated` (higher version, PUT), `unchanged` (the registry
   * has this version already), `skipped` (not a plugin definition: nothing to publish), or
   * `failed` (the registry refused it: see `error`).
   */
  status: 'published' | 'updated' | 'unchanged' | 'skipped' | 'failed';
  /** The version the registry had before an update. */
  previous_version?: string;
  /** Why it was skipped. */
  reason?: string;
  /** The registry's error when it failed. */
  error?: ErrorObject;
}

/** A loaded connector with the original (not interpolated) object it was registered from. */
export interface SyncSource {
  connector: CompiledConnector;
  /** The object given to `registerConnector`; file-loaded connectors are read from the file. */
  original?: object;
}

/** Codes that stop the whole sync: nothing else would work either. */
const FATAL = new Set(['UNAUTHORIZED', 'UNAVAILABLE', 'RATE_LIMITED', 'INTERNAL_ERROR']);

/**
 * Publishes or updates the loaded connector definitions on the server's registry (packages/sdk/README.md#cloud): a slug the registry does not know is published (`POST /plugins`); a version
 * the registry lacks is published as an update (`PUT /plugins/{slug}`, which the registry
 * refuses unless it is above every published version). The definition is sent as written (file
 * bytes, or the registered object), never with `${VAR}` values filled in from the environment.
 * Registry refusals are reported per plugin; a refused key or an unreachable server throws.
 */
export async function syncPlugins(api: HttpApi, sources: SyncSource[]): Promise<SyncResult[]> {
  const results: SyncResult[] = [];
  for (const { connector, original } of sources) {
    const definition = connector.definition as { slug?: unknown; version?: unknown };
    const slug = typeof definition.slug === 'string' ? definition.slug : undefined;
    const version = typeof definition.version === 'string' ? definition.version : undefined;
    if (!slug || !version) {
      results.push({
        slug: slug ?? connector.name,
        version: version ?? connector.version,
        status: 'skipped',
        reason:
          'a connector definition without plugin metadata (slug, version, name, ...: plugin definitions (docs/registry.md#plugin-definitions)) cannot be published',
      });
      continue;
    }
    try {
      results.push(await syncOne(api, slug, version, await bodyOf(connector, original)));
    } catch (error) {
      if (!(error instanceof WeftError) || FATAL.has(error.code)) throw error;
      results.push({ slug, version, status: 'failed', error: toErrorObject(error) });
    }
  }
  return results;
}

async function syncOne(
  api: HttpApi,
  slug: string,
  version: string,
  raw: { data: string | Uint8Array; contentType: string },
): Promise<SyncResult> {
  const path = `/plugins/${encodeURIComponent(slug)}`;
  const detail = await api.send('GET', path);
  if (detail.status === 404) {
    await api.call('POST', '/plugins', { raw });
    return { slug, version, status: 'published' };
  }
  if (detail.status !== 200) throw api.errorOf(detail, `GET ${path}`);
  const versions = (detail.json as { versions?: unknown }).versions;
  if (Array.isArray(versions) && versions.includes(version)) {
    return { slug, version, status: 'unchanged' };
  }
  const answer = await api.call('PUT', path, { raw });
  const previous = (answer.json as { previous_version?: unknown }).previous_version;
  return {
    slug,
    version,
    status: 'updated',
    ...(typeof previous === 'string' ? { previous_version: previous } : {}),
  };
}

async function bodyOf(
  connector: CompiledConnector,
  original: object | undefined,
): Promise<{ data: string | Uint8Array; contentType: string }> {
  if (original) return { data: JSON.stringify(original), contentType: 'application/json' };
  if (connector.file) {
    const json = extname(connector.file).toLowerCase() === '.json';
    return {
      data: await readFile(connector.file),
      contentType: json ? 'application/json' : 'application/yaml',
    };
  }
  return { data: JSON.stringify(connector.definition), contentType: 'application/json' };
}
