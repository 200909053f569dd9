import { readFileSync } from 'node:fs';
import type { AgentDefinition, AgentRunner } from '@weft/agents';
import type {
  CommonWeftOptions,
  RouterAccessOptions,
  RunsHereOptions,
  Weft,
  WeftOptions,
} from '@weft/sdk';
import { serverSettings, type ModeFlags, type RunMode } from './run-support.js';

/** The flags of `weft workflow run` that shape the client: the mode's and the router's TLS. */
export interface ClientFlags extends ModeFlags {
  routerCert?: string;
  routerKey?: string;
  routerCa?: string;
  routerToken?: string;
}

/**
 * The client's options for the run's mode, each mode with its own settings: `cloud` runs on the
 * server, which authorizes the caller and enforces guardrails, so it takes nothing of `here`.
 */
export function modeOptions(
  mode: RunMode,
  flags: ClientFlags,
  common: CommonWeftOptions,
  here: RunsHereOptions,
): WeftOptions {
  switch (mode) {
    case 'local':
      return { ...common, ...here };
    case 'self_hosted':
      return { ...common, ...here, executionMode: mode, ...routerOptions(flags) };
    case 'cloud':
      return { ...common, executionMode: mode, ...serverSettings(flags) };
    case 'hybrid':
      return {
        ...common,
        ...here,
        executionMode: mode,
        ...serverSettings(flags),
        ...(flags.router !== undefined ? routerOptions(flags) : {}),
      };
  }
}

/** The router of the Weft client (`self_hosted`, `hybrid`) from `--router` and its TLS files. */
function routerOptions(
  flags: ClientFlags,
): RouterAccessOptions & { routerUrl: string; apiKey?: string } {
  return {
    routerUrl: flags.router!,
    ...(flags.routerToken !== undefined ? { routerCredential: flags.routerToken } : {}),
    ...(flags.routerToken === undefined && flags.apiKey !== undefined
      ? { apiKey: flags.apiKey }
      : {}),
    ...(flags.routerCert && flags.routerKey
      ? {
          routerTls: {
            cert: readFileSync(flags.routerCert),
            key: readFileSync(flags.routerKey),
            ...(flags.routerCa ? { ca: readFileSync(flags.routerCa) } : {}),
          },
        }
      : {}),
  };
}

/**
 * The runner of the agent steps, with tools looked up on the router or server when the mode
 * sends actions there. Its modules (the model backends, tracing, the registry's definition
 * parser) are imported only here, for a file that has agents to run.
 */
export async function agentRunner(
  agents: AgentDefinition[],
  mode: RunMode,
  flags: ModeFlags,
  weft: () => Weft,
  /** The data directory of the ledger, when a workflow declares budgets. */
  ledgerDir?: string,
): Promise<{ runner: AgentRunner; close: () => Promise<void> }> {
  const [{ localAgentRunner, localBudgets }, { remoteToolSchemas }] = await Promise.all([
    import('../agent-runner.js'),
    import('./run-tool-schemas.js'),
  ]);
  // Budgets across runs are held locally in a ledger under .weft/ (opened only when a workflow
  // of the file declares some); without it their agent steps could not run.
  const ledger = ledgerDir !== undefined ? await localBudgets(ledgerDir) : undefined;
  return {
    runner: localAgentRunner(agents, weft, remoteToolSchemas(mode, flags, weft), ledger?.budgets),
    close: ledger?.close ?? (async () => undefined),
  };
}
