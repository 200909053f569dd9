import {
  BackendError,
  type DeployedWorkflowDetail,
  type ExecutionStatsSchema,
  type HealthResponse,
  type PluginDetail,
  type RoutesResponse,
  type SearchResponse,
  type WhoAmI,
} from '@weft/core';
import {
  approveExecution,
  listApprovals,
  rejectExecution,
  type DecisionOptions,
  type ListApprovalsOptions,
} from './approvals.js';
import { streamExecution, type ExecutionEvent, type StreamOptions } from './event-stream.js';
import {
  asRecord,
  cancelExecution,
  getExecution,
  listExecutions,
  postExecution,
  queryString,
  rerunExecution,
  waitForExecution,
  type ExecutionPage,
  type ListExecutionsOptions,
  type RerunOptions,
  type StartOptions,
  type WaitOptions,
} from './executions.js';
import { FetchTransport, type Credentials, type FetchFunction } from './fetch-transport.js';
import { HttpApi, type HttpApiOptions } from './http-api.js';
import type { DeployedWorkflowList, ExecutionRecord } from './wire.js';

/** Options of {@link WeftClient}. */
export interface WeftClientOptions {
  /** The server, e.g. `https://weft.example.com`. Default: the page's origin (`location`). */
  baseUrl?: string;
  /** The bearer API key, or a function giving the current one; none relies on cookies. */
  apiKey?: HttpApiOptions['apiKey'];
  /** The `fetch` to use. Default: the global one. */
  fetch?: FetchFunction;
  /** Cookies for a console on another origin (`include`); default `same-origin`. */
  credentials?: Credentials;
  /** Largest answer accepted, in bytes. Default 10 MiB. */
  maxResponseBytes?: number;
}

/** What {@link WeftClient.startExecution} runs: a workflow file as text or object. */
export interface StartExecutionOptions extends StartOptions {
  /** The workflow file (YAML or JSON text, or the parsed object with `workflows`). */
  workflow: string | Record<string, unknown>;
  /** Which workflow of the file to run (default: the only one). */
  workflowName?: string;
  inputs?: Record<string, unknown>;
}

/** Options of {@link WeftClient.searchPlugins}. */
export interface SearchPluginsOptions {
  /** Words matched as prefixes in name, tags and description. */
  query?: string;
  /** Only plugins with this tag. */
  tag?: string;
  /** Page size, 1 to 100. Default 20. */
  limit?: number;
  /** Matches to skip. */
  offset?: number;
  signal?: AbortSignal;
}

/**
 * The browser-safe client of a weft server's public HTTP API (`@weft/sdk/client`), for the web
 * console and any other `fetch` runtime: executions, deployments, the plugin registry and the
 * routing table. Requests and answers are the wire shapes (snake_case); options are camelCase.
 * Error answers throw {@link ApiError}; an unreachable server throws `UNAVAILABLE`.
 */
export class WeftClient {
  /** The HTTP layer (for routes this class has no method for). */
  readonly api: HttpApi;

  constructor(options: WeftClientOptions = {}) {
    const baseUrl = options.baseUrl ?? pageOrigin();
    this.api = new HttpApi({
      baseUrl: baseUrl ?? '',
      transport: new FetchTransport({
        ...(options.fetch ? { fetch: options.fetch } : {}),
        ...(options.credentials ? { credentials: options.credentials } : {}),
      }),
      ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
      ...(options.maxResponseBytes !== undefined
        ? { maxResponseBytes: options.maxResponseBytes }
        : {}),
    });
  }

  /** `GET /healthz`: the server's health (docs/protocol.md#health) (`unhealthy` is an answer too, not an error). */
  async health(signal?: AbortSignal): Promise<HealthResponse> {
    const answer = await this.api.send('GET', '/healthz', { ...(signal ? { signal } : {}) });
    const body = answer.json as Partial<HealthResponse> | undefined;
    if (typeof body?.status === 'string' && (answer.status === 200 || answer.status === 503)) {
      return body as HealthResponse;
    }
    throw this.api.errorOf(answer, 'GET /healthz');
  }

  /** Starts a workflow file (`POST /workflows/executions`): the pending (or ended) record. */
  async startExecution(options: StartExecutionOptions): Promise<ExecutionRecord> {
    const { workflow, workflowName, inputs, ...start } = options;
    return postExecution(
      this.api,
      {
        workflow,
        ...(workflowName !== undefined ? { workflow_name: workflowName } : {}),
        ...(inputs !== undefined ? { inputs } : {}),
      },
      start,
    );
  }

  /** Starts a deployed workflow by hand (`POST /workflows/{name}/executions`). */
  async startDeployment(
    name: string,
    inputs: Record<string, unknown> = {},
    signal?: AbortSignal,
  ): Promise<ExecutionRecord> {
    const path = `/workflows/${encodeURIComponent(name)}/executions`;
    const answer = await this.api.call('POST', path, {
      body: { inputs },
      ...(signal ? { signal } : {}),
    });
    return asRecord(answer.json);
  }

  /** The record of an execution as it is now. */
  getExecution(executionId: string, signal?: AbortSignal): Promise<ExecutionRecord> {
    return getExecution(this.api, executionId, signal);
  }

  /**
   * `GET /workflows/executions/{id}/definition`: the workflow an execution runs, as the server
   * loaded it (steps with `name` and `type`), e.g. to draw its graph.
   */
  async getExecutionDefinition(
    executionId: string,
    signal?: AbortSignal,
  ): Promise<{ workflow: Record<string, unknown> }> {
    return (await this.get(
      `/workflows/executions/${encodeURIComponent(executionId)}/definition`,
      signal,
    )) as { workflow: Record<string, unknown> };
  }

  /** One page of the caller's executions, newest first; follow `next_cursor` for the next. */
  listExecutions(options: ListExecutionsOptions = {}): Promise<ExecutionPage> {
    return listExecutions(this.api, options);
  }

  /** Every execution matching the filters, page after page (`limit` is the page size). */
  async *allExecutions(
    options: Omit<ListExecutionsOptions, 'cursor'> = {},
  ): AsyncGenerator<ExecutionRecord, void, undefined> {
    let cursor: string | null = null;
    do {
      const page: ExecutionPage = await listExecutions(this.api, {
        ...options,
        ...(cursor !== null ? { cursor } : {}),
      });
      yield* page.executions;
      cursor = page.next_cursor;
    } while (cursor !== null);
  }

  /** Cancels an execution: the canceled record (`CONFLICT` once it has ended). */
  cancelExecution(executionId: string, signal?: AbortSignal): Promise<ExecutionRecord> {
    return cancelExecution(this.api, executionId, signal);
  }

  /**
   * Starts the same workflow revision again with the same inputs (`POST .../{id}/rerun`): the
   * new execution's `pending` record. With `{ from: 'failed' }` or `{ from: '<step>' }` it
   * resumes the original from that step (see {@link RerunOptions}); a plain abort signal is
   * accepted as the options too.
   */
  rerunExecution(
    executionId: string,
    options?: RerunOptions | AbortSignal,
  ): Promise<ExecutionRecord> {
    return rerunExecution(this.api, executionId, options);
  }

  /**
   * One page of the executions waiting for an approval the caller may give (`GET /approvals`),
   * newest first; follow `next_cursor` for the next.
   */
  listApprovals(options: ListApprovalsOptions = {}): Promise<ExecutionPage> {
    return listApprovals(this.api, options);
  }

  /**
   * Approves an execution that waits for approval: its record, `pending` as it runs on.
   * `FORBIDDEN` without an approver role or for one's own run, `CONFLICT` once decided.
   */
  approveExecution(executionId: string, options: DecisionOptions = {}): Promise<ExecutionRecord> {
    return approveExecution(this.api, executionId, options);
  }

  /** Rejects an execution that waits for approval: its record, ended `canceled`. */
  rejectExecution(executionId: string, options: DecisionOptions = {}): Promise<ExecutionRecord> {
    return rejectExecution(this.api, executionId, options);
  }

  /** Polls an execution until it ends; gives the ended record. */
  waitForExecution(executionId: string, options: WaitOptions = {}): Promise<ExecutionRecord> {
    return waitForExecution(this.api, executionId, options);
  }

  /**
   * The events (docs/protocol.md#stream-events) of an execution as they happen (server-sent events read with `fetch`, so
   * the API key goes in a header). A dropped connection resumes after the last event with
   * `Last-Event-ID`; `lastEventId` resumes a stream seen before. Ends when the execution ends.
   */
  streamEvents(executionId: string, options: StreamOptions = {}): AsyncGenerator<ExecutionEvent> {
    return streamExecution(this.api, executionId, options);
  }

  /** `GET /workflows`: the deployed workflows the key may see. */
  async listDeployments(signal?: AbortSignal): Promise<DeployedWorkflowList> {
    return (await this.get('/workflows', signal)) as DeployedWorkflowList;
  }

  /** `GET /workflows/{name}`: a deployed workflow with its definition and revisions. */
  async getDeployment(name: string, signal?: AbortSignal): Promise<DeployedWorkflowDetail> {
    return (await this.get(
      `/workflows/${encodeURIComponent(name)}`,
      signal,
    )) as DeployedWorkflowDetail;
  }

  /** `GET /plugins/search`: one page of matching plugins and the number of all matches. */
  async searchPlugins(options: SearchPluginsOptions = {}): Promise<SearchResponse> {
    const query = queryString({
      q: options.query,
      tag: options.tag,
      limit: options.limit,
      offset: options.offset,
    });
    return (await this.get(`/plugins/search${query}`, options.signal)) as SearchResponse;
  }

  /** `GET /plugins/{slug}`: the detail of the latest version, or of `version`. */
  async getPlugin(
    slug: string,
    options: { version?: string; signal?: AbortSignal } = {},
  ): Promise<PluginDetail> {
    const path = `/plugins/${encodeURIComponent(slug)}${queryString({ version: options.version })}`;
    return (await this.get(path, options.signal)) as PluginDetail;
  }

  /** Every available version of a plugin, newest first. */
  async pluginVersions(slug: string, signal?: AbortSignal): Promise<string[]> {
    return (await this.getPlugin(slug, signal ? { signal } : {})).versions;
  }

  /** `GET /routes`: the router's table with health and calls in flight (an admin key). */
  async listRoutes(signal?: AbortSignal): Promise<RoutesResponse> {
    return (await this.get('/routes', signal)) as RoutesResponse;
  }

  /**
   * `GET /stats/executions`: the caller's executions per hour by status and p50/p95 durations per
   * workflow, from `since` (default 24 h ago) to `until` (default now).
   */
  async executionStats(
    options: { since?: string; until?: string; signal?: AbortSignal } = {},
  ): Promise<ExecutionStatsSchema> {
    const path = `/stats/executions${queryString({ since: options.since, until: options.until })}`;
    return (await this.get(path, options.signal)) as ExecutionStatsSchema;
  }

  /** `GET /auth/whoami`: the caller as the server sees it, with its workspace (`owner`). */
  async whoami(signal?: AbortSignal): Promise<WhoAmI> {
    return (await this.get('/auth/whoami', signal)) as WhoAmI;
  }

  /** Closes nothing `fetch` keeps; here for symmetry with the Node client. */
  async close(): Promise<void> {
    await this.api.close();
  }

  private async get(path: string, signal: AbortSignal | undefined): Promise<unknown> {
    const answer = await this.api.call('GET', path, { ...(signal ? { signal } : {}) });
    if (typeof answer.json !== 'object' || answer.json === null) {
      throw new BackendError(`GET ${path}: the server answered without a JSON object`, {
        backend: 'cloud',
        original_error: `HTTP ${answer.status}`,
      });
    }
    return answer.json;
  }
}

/** The page's origin in a browser; undefined elsewhere. */
function pageOrigin(): string | undefined {
  const location = (globalThis as { location?: { origin?: unknown } }).location;
  return typeof location?.origin === 'string' ? location.origin : undefined;
}
