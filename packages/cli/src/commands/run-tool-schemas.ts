import type { ActionLookup } from '@weft/agents';
import { BackendError, UnavailableError } from '@weft/core';
import type { Weft } from '@weft/sdk';
import { remoteActions, type RemoteAnswer } from '../remote-actions.js';
import { serverSettings, type ModeFlags, type RunMode } from './run-support.js';

/** Most bytes of one answer read for a tool's schema (a plugin definition): 10 MiB. */
const MAX_BYTES = 10 * 1024 * 1024;

/**
 * Where `weft workflow run` finds the input schemas of agent tools that do not run here, after
 * the connectors loaded with `--plugins`: the registry of the router's server (`--router`, read
 * through the router's connection, credential and TLS), then, in `hybrid` mode, the registry of
 * the `--server`. One lookup per command: each answer is read once for all of its runs.
 */
export function remoteToolSchemas(
  mode: RunMode,
  flags: ModeFlags,
  weft: () => Weft,
): ActionLookup[] {
  const lookups: ActionLookup[] = [];
  if (flags.router !== undefined && (mode === 'self_hosted' || mode === 'hybrid')) {
    lookups.push(
      remoteActions({
        where: `the router at ${flags.router}`,
        routes: true,
        get: (path) => weft().router!.get(path),
      }),
    );
  }
  const { cloudUrl, apiKey } = serverSettings(flags);
  if (mode === 'hybrid' && cloudUrl !== undefined) {
    lookups.push(
      remoteActions({
        where: `the server at ${cloudUrl}`,
        routes: true,
        get: (path) => fetchAnswer(cloudUrl, apiKey, path),
      }),
    );
  }
  return lookups;
}

/** `GET {base}{path}` with the API key; at most {@link MAX_BYTES}. */
async function fetchAnswer(
  base: string,
  apiKey: string | undefined,
  path: string,
): Promise<RemoteAnswer> {
  let response: Response;
  try {
    response = await fetch(`${base.replace(/\/+$/, '')}${path}`, {
      headers: {
        accept: 'application/json, */*',
        ...(apiKey !== undefined ? { authorization: `Bearer ${apiKey}` } : {}),
      },
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    throw new UnavailableError(
      `GET ${path}: cannot reach the server at ${base}${cause ? ` (${cause})` : ''}`,
      { backend: 'cloud', suggestion: 'check --server (or WORKFLOW_CLOUD_URL)' },
    );
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength;
    if (size > MAX_BYTES) {
      await response.body?.cancel().catch(() => {});
      throw new BackendError(`GET ${path}: the server's answer is over ${MAX_BYTES} bytes`, {
        backend: 'cloud',
        original_error: 'answer too large',
      });
    }
    chunks.push(chunk);
  }
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    body: Buffer.concat(chunks),
  };
}
