import type { GuardrailsOptions } from '@weft/guardrails';
import {
  ValidationError,
  type ExecutionMode,
  type Principal,
  type SecretsProvider,
} from '@weft/core';
import type { AgentInvoker, ToolApprovalGate } from '@weft/engine';
import { checkRouterUrl } from '../invoker/router-invoker.js';
import { checkPlace, type ExecutionPlace } from '../invoker/hybrid-invoker.js';
import type { SandboxOptions } from '../sandbox/index.js';
import type { ClientTls } from '../service/router-client.js';
import { checkCloudUrl } from './cloud-api.js';
import type { ApproveRun } from './local-authorization.js';
import { checkObservability, type ObservabilityOptions } from './observability.js';
import type { OnAudit } from './local-audit.js';
import { checkRegistryUrl } from './registry-settings.js';

/** Log levels of the SDK's structured logging. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/**
 * Options of {@link Weft} (packages/sdk/README.md#options, in camelCase: `executionMode` is
 * `execution_mode`, `retryConfig` is `retry_config`, `secretsManager` is `secrets_manager`,
 * `logLevel` is `log_level`, `logFormat` is `log_format`), one shape per `executionMode`:
 *
 * - `local` (the default): actions run in this process;
 * - `self_hosted`: every action step goes to the router at `routerUrl` (connectors and handlers
 *   registered here are not used);
 * - `cloud`: whole workflows run on the server at `cloudUrl` with `apiKey`, which authorizes
 *   them and enforces their guardrails;
 * - `hybrid`: each action step runs here, on that server or (when the run or `hybridDefault`
 *   places it `self_hosted`) through the router at `routerUrl`, by its `execution` field.
 *
 * A field that a mode does not use is typed `undefined` there, and a mode's required settings
 * are required, so a client configured for one mode with another's settings fails to compile.
 * {@link checkWeftOptions} still checks the mode and what it needs at run time, for JavaScript
 * callers (which may still pass another mode's settings: they are ignored, as before).
 */
export type WeftOptions =
  LocalWeftOptions | SelfHostedWeftOptions | CloudWeftOptions | HybridWeftOptions;

/** Options of every mode. */
export interface CommonWeftOptions {
  /** Default action timeout in seconds (default 120, at most 600). */
  timeout?: number | undefined;
  /**
   * Most items one `for_each` may iterate over (default 100,000): a longer list fails its step
   * with `VALIDATION` before any item runs. `weft workflow run` takes it from
   * `WEFT_MAX_FOR_EACH_ITEMS`.
   */
  maxForEachItems?: number | undefined;
  /** Retry policy of steps that set none (default: one attempt). */
  retryConfig?:
    { maxAttempts?: number; backoff?: 'exponential' | 'fixed'; backoffFactor?: number } | undefined;
  /** Environment of the run: what `env.*` reads, over the process environment. */
  environment?: Record<string, string> | undefined;
  /** Inherit the process environment under `environment` (default true). */
  inheritEnvironment?: boolean | undefined;
  /** Where `secrets.*` come from (default: the environment). */
  secretsManager?: SecretsProvider | undefined;
  /** Default `info`. */
  logLevel?: LogLevel | undefined;
  /** `json` (default) or `text`. */
  logFormat?: 'json' | 'text' | undefined;
  /** Where log lines go (default: standard error). */
  logDestination?: NodeJS.WritableStream | undefined;
  /**
   * Traces and metrics of the runs of this client (`observability`: `{enabled, endpoint,
   * sampleRate}`), docs/observability.md. Off by default.
   */
  observability?: ObservabilityOptions | undefined;
  /**
   * API key of the server (`api_key`), needed by `cloud` and `hybrid` (and `syncPlugins`); also
   * the router's credential unless {@link WeftOptions.routerCredential} is set. Default:
   * `WORKFLOW_REGISTRY_API_KEY` of the environment.
   */
  apiKey?: string | undefined;
  /**
   * The server of `cloud` and `hybrid` (`cloud_url`), e.g. `https://weft.example.com`. Default:
   * `WORKFLOW_CLOUD_URL`, else `WORKFLOW_REGISTRY_URL` of the environment.
   */
  cloudUrl?: string | undefined;
  /**
   * The plugin registry (`registry_url`) that `syncPlugins()` publishes to, when it is not the
   * server of `cloudUrl`. Default: `WORKFLOW_REGISTRY_URL`, else `cloudUrl` (then
   * `WORKFLOW_CLOUD_URL`).
   */
  registryUrl?: string | undefined;
  /**
   * API key of the registry (`registry_api_key`). Default: `WORKFLOW_REGISTRY_API_KEY`, else
   * `apiKey`.
   */
  registryApiKey?: string | undefined;
  /**
   * Called with each authorization decision of a local run that is written down: today the
   * refusals (`decision: "deny"` of `execution.start` and `step.run`), with the same fields the
   * server's audit log stores (a `LocalAuditEntry`). Each one is also logged once, at
   * warn level, as `{event: "authorization.denied", audit: entry}`. A hook that throws or
   * rejects is logged and does not change the run. Not used in `cloud` mode: the server audits.
   */
  onAudit?: OnAudit | undefined;
}

/** Options of the modes whose steps run in this process (all but `cloud`). */
export interface RunsHereOptions {
  /**
   * Who runs the workflows of this client (not a contract option): checked against each
   * workflow's `authorization` block (and its subworkflows') before a run starts, and against
   * steps' `authorization.permissions` before each step. `localPrincipal({roles, permissions})`
   * (from `@weft/core`) declares one; the CLI verifies `--identity` tokens into one. Without it,
   * a workflow with authorization enabled is refused (`FORBIDDEN`, `reason: "no_identity"`).
   * Not used in `cloud` mode: the server authorizes the caller of `apiKey`.
   */
  identity?: Principal | undefined;
  /**
   * Asked before a run of a workflow that requires approval (`authorization.approval`), once the
   * identity is authorized; without it such a run is refused (`FORBIDDEN`, `reason:
   * "approval_required"`). Not used in `cloud` mode.
   */
  approve?: ApproveRun | undefined;
  /**
   * How steps' `guardrails` are enforced in local, hybrid and dry runs: the detectors (default
   * `defaultDetectors()` of `@weft/guardrails`), the guardrails in force for a step (agent
   * defaults), the text limit. The interceptor is installed only for runs whose workflows set
   * guardrails. Not used in `cloud` mode: the server enforces them.
   */
  guardrails?: GuardrailsOptions | undefined;
  /**
   * Runs the agent steps of local runs (`@weft/agents`' `AgentRunner`: agent definitions and
   * model backends). Without it an agent step fails with `UNAVAILABLE`; dry runs answer agent
   * steps from `testing.dryRun.mockData` and never call it.
   */
  agents?: AgentInvoker | undefined;
  /**
   * Decides the tool calls of local agent steps that need approval
   * (docs/agents.md#tool-approvals). Without it such calls are refused (`FORBIDDEN`,
   * `approval_required`): the model is told, or the step fails (`on_reject: fail`).
   */
  toolApprovals?: ToolApprovalGate | undefined;
  /**
   * The sandbox `shell` actions run in (not a contract option; docs/workflow-language.md#connector-runtime):
   * `mode` (`strict` refuses a declared limit this host cannot enforce, `best-effort` runs it and
   * calls `warn` once per connector), `cgroupParent`, `scratchRoot`. Default: strict, parent group
   * `weft` below this process's own, scratch under `<os tmpdir>/weft-scratch`. `weft workflow run`
   * takes it from `WEFT_SANDBOX`, `WEFT_CGROUP_PARENT` and `WEFT_SCRATCH_DIR`.
   */
  sandbox?: SandboxOptions | undefined;
  /**
   * The Standard Webhooks secret (`whsec_…`) the callbacks of `executeAsync` runs in this process
   * are signed with (docs/runtime.md#asynchronous-runs-without-a-server). Default:
   * `WEFT_CALLBACK_SECRET`, else one made for the client (`weft.callbackSecret()` gives it).
   */
  callbackSecret?: string | undefined;
}

/** How this client reaches the router (`self_hosted`, `hybrid`). */
export interface RouterAccessOptions {
  /** Client certificate for a router that requires mutual TLS (docs/router.md#protection). */
  routerTls?: ClientTls | undefined;
  /**
   * Bearer credential of the router's `POST /execute`: an API key of the router's server, or its
   * router token (`WEFT_ROUTER_TOKEN`). Default: `apiKey` (then `WORKFLOW_REGISTRY_API_KEY`).
   */
  routerCredential?: string | undefined;
}

/** The fields named `K`, absent: they belong to another mode. */
type Unused<K extends string> = { [P in K]?: undefined };

/** `executionMode: 'local'` (the default): actions run in this process. */
export interface LocalWeftOptions
  extends
    CommonWeftOptions,
    RunsHereOptions,
    Unused<'routerUrl' | 'hybridDefault' | keyof RouterAccessOptions> {
  executionMode?: 'local' | undefined;
}

/** `executionMode: 'self_hosted'`: every action step goes to the router. */
export interface SelfHostedWeftOptions
  extends CommonWeftOptions, RunsHereOptions, RouterAccessOptions, Unused<'hybridDefault'> {
  executionMode: 'self_hosted';
  /**
   * The router (`router_url`), e.g. `http://127.0.0.1:8080`: of every action step in
   * `self_hosted` mode, of the steps placed `self_hosted` in `hybrid` mode.
   */
  routerUrl: string;
}

/** `executionMode: 'cloud'`: whole workflows run on the server at `cloudUrl`. */
export interface CloudWeftOptions
  extends
    CommonWeftOptions,
    Unused<'routerUrl' | 'hybridDefault' | keyof RouterAccessOptions | keyof RunsHereOptions> {
  executionMode: 'cloud';
}

/**
 * `executionMode: 'hybrid'`: each action step runs where its `execution` field (or
 * `hybridDefault`) places it; placing steps `self_hosted` by default needs `routerUrl`.
 */
export type HybridWeftOptions = CommonWeftOptions &
  RunsHereOptions &
  RouterAccessOptions & { executionMode: 'hybrid' } & (
    | {
        /** Where steps without an `execution` field run (default `local`). */
        hybridDefault?: Exclude<ExecutionPlace, 'self_hosted'> | undefined;
        /** The router of the steps placed `self_hosted`, e.g. `http://127.0.0.1:8080`. */
        routerUrl?: string | undefined;
      }
    | {
        /** Steps without an `execution` field go through the router at `routerUrl`. */
        hybridDefault: 'self_hosted';
        /** The router of the steps placed `self_hosted`, e.g. `http://127.0.0.1:8080`. */
        routerUrl: string;
      }
  );

/** The execution modes this release runs. */
const SUPPORTED_MODES: readonly ExecutionMode[] = ['local', 'self_hosted', 'cloud', 'hybrid'];

/** Where `cloud` and `hybrid` go, once the environment is taken into account. */
export interface CloudSettings {
  apiKey: string;
  cloudUrl: string;
}

/**
 * The key and URL of the `cloud` and `hybrid` modes: the options, else the environment
 * (`WORKFLOW_REGISTRY_API_KEY`; `WORKFLOW_CLOUD_URL`, then `WORKFLOW_REGISTRY_URL`). Throws
 * `VALIDATION` naming what is missing, before any request.
 */
export function cloudSettings(
  options: WeftOptions,
  environment: Readonly<Record<string, string | undefined>>,
  purpose: string,
): CloudSettings {
  const apiKey = options.apiKey ?? nonEmpty(environment['WORKFLOW_REGISTRY_API_KEY']);
  if (apiKey === undefined || apiKey.trim() === '') {
    throw new ValidationError(
      `${purpose} needs an API key: pass apiKey or set WORKFLOW_REGISTRY_API_KEY (weft auth create-key makes one)`,
      { field: 'apiKey', constraint: 'required' },
    );
  }
  const cloudUrl =
    options.cloudUrl ??
    nonEmpty(environment['WORKFLOW_CLOUD_URL']) ??
    nonEmpty(environment['WORKFLOW_REGISTRY_URL']);
  if (cloudUrl === undefined) {
    throw new ValidationError(
      `${purpose} needs the server's URL: pass cloudUrl or set WORKFLOW_CLOUD_URL (or WORKFLOW_REGISTRY_URL)`,
      { field: 'cloudUrl', constraint: 'required' },
    );
  }
  checkCloudUrl(cloudUrl, 'cloudUrl');
  return { apiKey, cloudUrl };
}

/**
 * The bearer credential of the router's `POST /execute` (`self_hosted` steps):
 * `routerCredential`, else `apiKey`, else `WORKFLOW_REGISTRY_API_KEY`; none when none is set (a
 * router opened for a private network, or one that takes a client certificate).
 */
export function routerCredential(
  options: WeftOptions,
  environment: Readonly<Record<string, string | undefined>>,
): { credential?: string } {
  const key =
    options.routerCredential ??
    options.apiKey ??
    nonEmpty(environment['WORKFLOW_REGISTRY_API_KEY']);
  return key !== undefined && key.trim() !== '' ? { credential: key.trim() } : {};
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** Checks {@link WeftOptions} once. */
export function checkWeftOptions(options: WeftOptions): void {
  const mode = options.executionMode ?? 'local';
  if (!SUPPORTED_MODES.includes(mode)) {
    throw new ValidationError(
      `executionMode must be one of ${SUPPORTED_MODES.map((m) => `"${m}"`).join(', ')}, got ${JSON.stringify(mode)}`,
      { field: 'executionMode', constraint: 'enum' },
    );
  }
  if (mode === 'self_hosted' || (mode === 'hybrid' && options.routerUrl !== undefined))
    checkRouterUrl(options.routerUrl, 'routerUrl');
  if (options.cloudUrl !== undefined) checkCloudUrl(options.cloudUrl, 'cloudUrl');
  if (options.registryUrl !== undefined) checkRegistryUrl(options.registryUrl);
  checkPlace(options.hybridDefault, 'hybridDefault');
  if (
    mode === 'hybrid' &&
    options.hybridDefault === 'self_hosted' &&
    options.routerUrl === undefined
  ) {
    throw new ValidationError(
      'hybridDefault "self_hosted" needs routerUrl (the router of weft server, e.g. http://127.0.0.1:8080)',
      { field: 'routerUrl', constraint: 'required' },
    );
  }
  checkIdentity(options.identity);
  checkObservability(options.observability);
  if (options.approve !== undefined && typeof options.approve !== 'function') {
    throw new ValidationError('approve must be a function (request) => boolean', {
      field: 'approve',
      constraint: 'type',
    });
  }
  const timeout = options.timeout;
  if (timeout !== undefined && (!Number.isInteger(timeout) || timeout < 1 || timeout > 600)) {
    throw new ValidationError(`timeout must be an integer from 1 to 600 seconds, got ${timeout}`, {
      field: 'timeout',
      constraint: 'range',
    });
  }
  const items = options.maxForEachItems;
  if (items !== undefined && (!Number.isSafeInteger(items) || items < 1)) {
    throw new ValidationError(`maxForEachItems must be a positive integer, got ${items}`, {
      field: 'maxForEachItems',
      constraint: 'minimum',
    });
  }
  const attempts = options.retryConfig?.maxAttempts;
  if (attempts !== undefined && (!Number.isInteger(attempts) || attempts < 1 || attempts > 100)) {
    throw new ValidationError(
      `retryConfig.maxAttempts must be an integer from 1 to 100, got ${attempts}`,
      {
        field: 'retryConfig.maxAttempts',
        constraint: 'range',
      },
    );
  }
}

/** Checks the shape of `identity`: a principal whose grants are lists of strings. */
function checkIdentity(identity: Principal | undefined): void {
  if (identity === undefined) return;
  const strings = (value: unknown) =>
    Array.isArray(value) && value.every((item) => typeof item === 'string');
  if (
    typeof identity !== 'object' ||
    identity === null ||
    typeof identity.subject !== 'string' ||
    !strings(identity.roles) ||
    !strings(identity.permissions)
  ) {
    throw new ValidationError(
      'identity must be a principal {kind, subject, roles, permissions, ...}: localPrincipal({ roles, permissions }) from @weft/core makes one',
      { field: 'identity', constraint: 'type' },
    );
  }
}
