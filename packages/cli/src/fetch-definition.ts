import type { PluginDetail } from '@weft/core';
import { checksumOf } from '@weft/registry/definitions';
import type { RegistryClient } from './registry-client.js';

/** A definition downloaded and checked against its advertised checksum, or why not. */
export type FetchResult =
  | { ok: true; detail: PluginDetail; bytes: Uint8Array; contentType: string; checks: string[] }
  | { ok: false; message: string; detail?: PluginDetail };

/**
 * Reads the detail of `slug@version` (latest when absent), downloads `schema_url`, and checks
 * the SHA-256 of the bytes against `checksum` and the `Content-Digest` header.
 */
export async function fetchVerified(
  client: RegistryClient,
  slug: string,
  version: string | undefined,
): Promise<FetchResult> {
  if (!/^[a-z0-9]+(?:[-_][a-z0-9]+)*$/.test(slug) || slug.length > 64) {
    return { ok: false, message: `"${slug}" is not a plugin slug` };
  }
  const query = version === undefined ? '' : `?version=${encodeURIComponent(version)}`;
  const detail = (await client.expectOk('GET', `/plugins/${slug}${query}`)).json as PluginDetail;
  const download = await client.expectOk(
    'GET',
    `/plugins/${slug}/${encodeURIComponent(detail.version)}/schema`,
    {
      headers: { accept: '*/*' },
    },
  );
  const actual = checksumOf(download.bytes);
  if (actual !== detail.checksum) {
    return {
      ok: false,
      detail,
      message: `checksum mismatch for ${slug}@${detail.version}: registry says ${detail.checksum}, downloaded bytes are ${actual}`,
    };
  }
  const checks = [`checksum ${actual} matches`];
  const digest = download.headers.get('content-digest');
  if (digest !== null) {
    const expected = `sha-256=:${Buffer.from(actual.slice(7), 'hex').toString('base64')}:`;
    if (digest !== expected)
      return { ok: false, detail, message: `Content-Digest ${digest} does not match the bytes` };
    checks.push('Content-Digest matches');
  }
  return {
    ok: true,
    detail,
    bytes: download.bytes,
    contentType: download.headers.get('content-type') ?? '',
    checks,
  };
}
