import { Option, type Command } from 'commander';
import { WeftClient } from '@weft/sdk/client';
import { apiKeyOption } from './registry-client.js';
import { serverSettings } from './commands/run-support.js';

/** The flags of the commands that act on a running server with a key. */
export interface ServerFlags {
  server?: string;
  apiKey?: string;
}

/** Adds `--server <url>` and `--api-key <key>` as `weft workflow deploy` has them. */
export function addServerOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--server <url>',
        'server address (default: WORKFLOW_CLOUD_URL, then WORKFLOW_REGISTRY_URL)',
      ),
    )
    .addOption(apiKeyOption());
}

/**
 * The client of the server the flags name, with its key: `--server`, else `WORKFLOW_CLOUD_URL`,
 * else `WORKFLOW_REGISTRY_URL`; `--api-key`, else `WORKFLOW_REGISTRY_API_KEY` (as `weft
 * workflow deploy` and `run --cloud` pick them). A string is the usage error to print when one
 * is missing (`what` says what needs them, e.g. "deciding an approval").
 */
export function connectServer(
  flags: ServerFlags,
  what: string,
  env: NodeJS.ProcessEnv = process.env,
): WeftClient | string {
  const { cloudUrl, apiKey } = serverSettings(flags, env);
  if (cloudUrl === undefined)
    return 'give --server <url> (or set WORKFLOW_CLOUD_URL or WORKFLOW_REGISTRY_URL)';
  if (apiKey === undefined)
    return `${what} needs an API key: set WORKFLOW_REGISTRY_API_KEY or --api-key`;
  return new WeftClient({ baseUrl: cloudUrl, apiKey });
}
