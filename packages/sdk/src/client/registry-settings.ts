import { ValidationError } from '@weft/core';
import { CloudApi, checkCloudUrl } from './cloud-api.js';
import type { WeftOptions } from './options.js';

/** Where the plugin registry is, once the environment is taken into account. */
export interface RegistrySettings {
  /** Bearer key of the registry. */
  apiKey: string;
  /** Base URL of the registry (a `weft server`, or one that serves only `/plugins`). */
  registryUrl: string;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/**
 * The URL and key of the plugin registry (`registry_url`, `registry_api_key` of the contract),
 * first set of: the `registryUrl` / `registryApiKey` options, `WORKFLOW_REGISTRY_URL` /
 * `WORKFLOW_REGISTRY_API_KEY` of the environment, then the server's `cloudUrl` (or
 * `WORKFLOW_CLOUD_URL`) / `apiKey`. So one program can read and publish plugins on one registry
 * and run workflows on another server. Throws `VALIDATION` naming what is missing, before any
 * request.
 */
export function registrySettings(
  options: WeftOptions,
  environment: Readonly<Record<string, string | undefined>>,
  purpose: string,
): RegistrySettings {
  const apiKey =
    nonEmpty(options.registryApiKey) ??
    nonEmpty(environment['WORKFLOW_REGISTRY_API_KEY']) ??
    nonEmpty(options.apiKey);
  if (apiKey === undefined) {
    throw new ValidationError(
      `${purpose} needs the registry's API key: pass registryApiKey (or apiKey) or set WORKFLOW_REGISTRY_API_KEY (weft auth create-key makes one)`,
      { field: 'registryApiKey', constraint: 'required' },
    );
  }
  const registryUrl =
    nonEmpty(options.registryUrl) ??
    nonEmpty(environment['WORKFLOW_REGISTRY_URL']) ??
    nonEmpty(options.cloudUrl) ??
    nonEmpty(environment['WORKFLOW_CLOUD_URL']);
  if (registryUrl === undefined) {
    throw new ValidationError(
      `${purpose} needs the registry's URL: pass registryUrl (or cloudUrl) or set WORKFLOW_REGISTRY_URL`,
      { field: 'registryUrl', constraint: 'required' },
    );
  }
  checkRegistryUrl(registryUrl);
  return { apiKey: apiKey.trim(), registryUrl };
}

/** Checks a registry URL like a server URL (absolute http(s), no credentials), as `registryUrl`. */
export function checkRegistryUrl(url: string): URL {
  return checkCloudUrl(url, 'registryUrl');
}

/** The HTTP client of the registry at `settings`. */
export function registryApi(settings: RegistrySettings): CloudApi {
  return new CloudApi({
    baseUrl: settings.registryUrl,
    apiKey: settings.apiKey,
    urlField: 'registryUrl',
    unreachableHint: `check registryUrl (WORKFLOW_REGISTRY_URL) and that a weft registry runs at ${settings.registryUrl.replace(/\/+$/, '')}`,
  });
}
