import { randomUUID } from 'node:crypto';
import {
  EnvironmentSecretsProvider,
  type ActionInvoker,
  type EventAccepted,
  type ExecutionRecord,
  type SecretsProvider,
} from '@weft/core';
import {
  DryRunInterceptor,
  standardInterceptors,
  type AuthorizationCheck,
  type RunInterceptor,
  type RunResult,
  type WorkflowDefinition,
} from '@weft/engine';
import { guardrailsInterceptor, needsGuardrails } from '@weft/guardrails';
import type { Logger } from 'pino';
import type { ActionHandler } from '../handlers/handler.js';
import { LocalInvoker } from '../invoker/local-invoker.js';
import { RouterInvoker } from '../invoker/router-invoker.js';
import { CloudInvoker } from '../invoker/cloud-invoker.js';
import type { HybridInvoker } from '../invoker/hybrid-invoker.js';
import { hybridInvokerFor } from './hybrid-placement.js';
import type { ExecuteAsyncOptions, ExecuteOptions } from './execute-options.js';
import { CloudApi } from './cloud-api.js';
import { startExecution } from './cloud-executions.js';
import { checkCloudRunOptions, cloudRunOptions, runInCloud } from './cloud-run.js';
import { AsyncExecutions } from './async-executions.js';
import { emitEvent } from './emit.js';
import { syncPlugins, type SyncResult } from './sync-plugins.js';
import { processEnvironment } from './environment.js';
import { loadWorkflowFile } from './load.js';
import { createLogger, logEvent } from './logging.js';
import { runLocally } from './local-run.js';
import { observedRun, startObservability } from './observability.js';
import type { Telemetry } from '@weft/telemetry/setup';
import { checkWeftOptions, cloudSettings, routerCredential, type WeftOptions } from './options.js';
import { loadOptions } from './load-options.js';
import { authorizeLocalRun, authorizeRun } from './local-authorization.js';
import { LocalAudit } from './local-audit.js';
import { CloudConnectors, type RegisterConnectorOptions } from './cloud-connectors.js';
import { registryApi, registrySettings } from './registry-settings.js';
import { WorkflowShelf } from './workflow-shelf.js';

/**
 * The weft SDK client (packages/sdk/README.md): register connectors and handlers, load workflow
 * files, execute workflows in one of the modes (docs/protocol.md#execution-modes): `local` (actions run in this
 * process, as child processes or over HTTP), `self_hosted` (every action through a router),
 * `cloud` (whole workflows on a weft server) or `hybrid` (each step here, on the server or
 * through the router).
 */
export class Weft extends AsyncExecutions {
  /** The invoker that runs actions; connectors and handlers are registered on it. */
  readonly invoker: LocalInvoker;
  /**
   * The invoker that sends action steps to the router at `routerUrl`: every one in `self_hosted`
   * mode, those placed `self_hosted` in `hybrid` mode (undefined without a `routerUrl`).
   */
  readonly router: RouterInvoker | undefined;
  readonly logger: Logger;
  /** The server of `cloud` and `hybrid` mode (made on first use in the other modes). */
  private server: CloudApi | undefined;
  /** The plugin registry of `syncPlugins` (made on first use). */
  private registry: CloudApi | undefined;
  /** Definitions given to `registerConnector`, and those registered with `{ cloud: true }`. */
  private readonly cloudConnectors = new CloudConnectors();
  /** Audits local authorization refusals (log line and `onAudit`). */
  private readonly audit: LocalAudit;
  private readonly shelf = new WorkflowShelf();
  private readonly environment: Record<string, string | undefined>;
  private guardrails: RunInterceptor | undefined;
  /** Started on the first run when `observability.enabled` (undefined: off). */
  private telemetry: Promise<Telemetry | undefined> | undefined;

  constructor(private readonly options: WeftOptions = {}) {
    super();
    checkWeftOptions(options);
    this.environment = {
      ...(options.inheritEnvironment === false ? {} : processEnvironment()),
      ...options.environment,
    };
    this.invoker = new LocalInvoker({
      environment: this.environment,
      ...(options.timeout !== undefined ? { defaultTimeout: options.timeout } : {}),
      ...(options.sandbox !== undefined ? { sandbox: options.sandbox } : {}),
    });
    const mode = options.executionMode ?? 'local';
    this.router =
      mode === 'self_hosted' || (mode === 'hybrid' && options.routerUrl !== undefined)
        ? new RouterInvoker({
            routerUrl: options.routerUrl!,
            ...(options.routerTls ? { tls: options.routerTls } : {}),
            ...routerCredential(options, this.environment),
          })
        : undefined;
    if (mode === 'cloud' || mode === 'hybrid') this.cloudApi(`execution mode "${mode}"`);
    this.logger = createLogger(
      options.logLevel ?? 'info',
      options.logFormat ?? 'json',
      options.logDestination ?? process.stderr,
      options.observability?.enabled === true,
    );
    this.audit = new LocalAudit(this.logger, options.onAudit);
  }

  /**
   * Registers a connector from an in-memory definition (packages/sdk/CONNECTORS.md#definitions);
   * `{ cloud: true }` places it in the cloud (see {@link RegisterConnectorOptions}).
   */
  registerConnector(definition: object, options?: RegisterConnectorOptions): this {
    this.cloudConnectors.add(this.invoker.registerConnector(definition), definition, options);
    return this;
  }

  /** Registers the connectors of a file (YAML or JSON); `{ cloud: true }` as for `registerConnector`. */
  async loadConnector(file: string, options?: RegisterConnectorOptions): Promise<this> {
    this.cloudConnectors.add(await this.invoker.loadConnectorFile(file), undefined, options);
    return this;
  }

  /** Registers every connector file of a directory (`./plugins` by convention). */
  async loadConnectors(dir: string, options: { missingOk?: boolean } = {}): Promise<this> {
    await this.invoker.loadConnectorDir(dir, options);
    return this;
  }

  /** Registers an in-process handler for `<plugin>.<action>`. */
  registerHandler<Input = Record<string, unknown>>(key: string, fn: ActionHandler<Input>): this {
    this.invoker.registerHandler(key, fn);
    return this;
  }

  /** Registers the `@handler` methods of an object. */
  registerHandlers(target: object): this {
    this.invoker.registerHandlers(target);
    return this;
  }

  /** Loads (and validates) the workflows of a file; throws `VALIDATION` listing every error. */
  async loadWorkflows(file: string): Promise<WorkflowDefinition[]> {
    const workflows = await loadWorkflowFile(file, loadOptions(this.options, this.shelf.byName));
    for (const workflow of workflows) this.shelf.put(workflow);
    return workflows;
  }

  /** Adds already loaded definitions. */
  addWorkflows(workflows: Iterable<WorkflowDefinition>): this {
    for (const workflow of workflows) this.shelf.add(workflow);
    return this;
  }

  /** Every loaded workflow (the highest version of each name). */
  *workflows(): IterableIterator<WorkflowDefinition> {
    for (const name of this.shelf.byName.keys()) yield this.shelf.find(name)!;
  }

  /** Executes the loaded workflow `name` with `inputs`; never rejects on a workflow failure. */
  async execute(
    name: string,
    inputs: Record<string, unknown> = {},
    options: ExecuteOptions = {},
  ): Promise<RunResult> {
    return this.run(this.shelf.require(name), inputs, options);
  }

  /** Executes every loaded workflow with the same inputs, one after the other. */
  async executeAll(
    inputs: Record<string, unknown> = {},
    options: ExecuteOptions = {},
  ): Promise<RunResult[]> {
    const results: RunResult[] = [];
    for (const workflow of this.workflows())
      results.push(await this.run(workflow, inputs, options));
    return results;
  }

  /**
   * Runs a definition directly. Outside `cloud` mode (where the server authorizes its API key's
   * caller) the run is authorized here first, before any step: it rejects with `FORBIDDEN` when
   * {@link WeftOptions.identity} does not meet the `authorization` blocks of the workflow and of
   * its subworkflows, and asks {@link WeftOptions.approve} when the workflow requires approval
   * (see `authorizeRun` for its errors).
   */
  async run(
    workflow: WorkflowDefinition,
    inputs: Record<string, unknown>,
    options: ExecuteOptions = {},
  ): Promise<RunResult> {
    if (this.options.executionMode === 'cloud') return this.runInCloud(workflow, inputs, options);
    const dryRun = workflow.testing?.dryRun;
    const useMocks = options.dryRun === true || dryRun?.enabled === true;
    const mocks = useMocks ? new DryRunInterceptor(dryRun ?? { mockConnectors: true }) : undefined;
    const hybrid = mocks ? undefined : this.hybridInvoker(options);
    const invoker: ActionInvoker = hybrid ?? this.actionInvoker();
    const { identity, approve } = this.options;
    const stepPermissions = await authorizeRun(workflow, inputs, {
      identity,
      approve,
      resolve: (name, range) => this.shelf.find(name, range),
      signal: options.signal,
      audit: this.audit,
    });
    const telemetry = await this.startTelemetry();
    const chain = standardInterceptors({
      tracing: telemetry?.tracing?.interceptor,
      stepPermissions,
      guardrails: this.guardrailsFor(workflow),
      mocks,
      metrics: telemetry?.metrics.interceptor,
    });
    // Known before the run starts, for its span.
    const executionId = options.executionId ?? randomUUID();
    const runIt = () =>
      runLocally({
        workflow,
        inputs,
        options: { ...options, executionId },
        invoker,
        hybrid,
        mocks,
        chain,
        client: this.options,
        environment: this.environment,
        secrets: this.secretsFor(mocks !== undefined && dryRun?.mockConnectors !== false),
        logger: this.logger,
        find: (name, range) => this.shelf.find(name, range),
      });
    const run = { executionId, workflow, mode: this.options.executionMode ?? 'local' };
    const result = await (telemetry ? observedRun(telemetry, run, runIt) : runIt());
    // A dry run says what it did not really do.
    if (mocks) result.mocked_steps = mocks.mockedSteps();
    return result;
  }

  /**
   * The counters of this client's runs in the Prometheus text format (action calls by status,
   * durations, retries, ended executions; docs/observability.md#metrics). Empty when
   * `observability` is not enabled.
   */
  async metrics(): Promise<string> {
    const telemetry = await this.startTelemetry();
    return telemetry ? telemetry.prometheus() : '';
  }

  private startTelemetry(): Promise<Telemetry | undefined> {
    return (this.telemetry ??= startObservability(this.options.observability, this.environment));
  }

  /**
   * Checks, without running anything, whether {@link WeftOptions.identity} may run `workflow`
   * here: its `authorization` block and those of the subworkflows it may call. Throws the
   * `FORBIDDEN` error a run would (`details.missing_roles`, `details.missing_permissions`); gives
   * the check, whose `approval` says whether a run asks {@link WeftOptions.approve} first.
   * With `audit: true` (a caller that refuses the run on this check, like `weft workflow run`),
   * a refusal is audited as a refused run is: logged as `authorization.denied`, given to `onAudit`.
   */
  checkAuthorization(
    workflow: WorkflowDefinition | string,
    options: { audit?: boolean } = {},
  ): AuthorizationCheck {
    const definition = typeof workflow === 'string' ? this.shelf.require(workflow) : workflow;
    const resolve = (name: string, range?: string) => this.shelf.find(name, range);
    const audit = options.audit === true ? this.audit : undefined;
    return authorizeLocalRun(definition, this.options.identity, resolve, undefined, audit);
  }

  /**
   * The secrets provider of a run. A dry run with every connector mocked reaches no real
   * service, so a secret that is not set reads as the placeholder `dry-run:<NAME>`.
   */
  private secretsFor(mocked: boolean): SecretsProvider {
    const base = this.options.secretsManager ?? new EnvironmentSecretsProvider(this.environment);
    if (!mocked) return base;
    return { get: async (name) => (await base.get(name)) ?? `dry-run:${name}` };
  }

  /**
   * The invoker real actions go through outside hybrid placement (the testing kit swaps it for
   * mocks): the router in `self_hosted` mode, else this process.
   */
  protected actionInvoker(): ActionInvoker {
    return this.options.executionMode === 'self_hosted' ? this.router! : this.invoker;
  }

  /**
   * Starts the loaded workflow `name` and gives the pending record (docs/runtime.md#execution-record)
   * (`execution_id`, `poll_url`) at once; follow it with {@link wait}, {@link getExecution} or
   * {@link stream}, stop it with {@link cancel}. In `cloud` mode it runs on the server; in the
   * other modes in this process, as `execute` would run it, for as long as the process lives
   * (docs/runtime.md#asynchronous-runs-without-a-server; callbacks signed with {@link callbackSecret}).
   */
  async executeAsync(
    name: string,
    inputs: Record<string, unknown> = {},
    options: ExecuteAsyncOptions = {},
  ): Promise<ExecutionRecord> {
    if (this.options.executionMode !== 'cloud') {
      return this.startHere(this.shelf.require(name), inputs, options);
    }
    const api = this.cloudApi('executeAsync');
    return startExecution(
      api,
      this.shelf.require(name),
      this.shelf.everyVersion(),
      inputs,
      options,
    );
  }

  /**
   * Emits a `custom` event through the server (`POST /events/{topic}`, needs `cloudUrl` and
   * `apiKey`: there is no local event router); resolves with the executions the server started.
   */
  async emit(topic: string, event: unknown): Promise<EventAccepted> {
    return emitEvent(this.cloudApi('emit (events are delivered by a weft server)'), topic, event);
  }

  /**
   * Publishes or updates the loaded plugin definitions on the registry (`registryUrl`, by default
   * the server's; packages/sdk/README.md#cloud) and reports what it did with each: the connectors
   * registered with `{ cloud: true }`, or every loaded one when none is.
   */
  async syncPlugins(): Promise<SyncResult[]> {
    const api = (this.registry ??= registryApi(
      registrySettings(this.options, this.environment, 'syncPlugins'),
    ));
    return syncPlugins(api, this.cloudConnectors.toSync(this.invoker.connectors()));
  }

  /**
   * Cancels the asynchronous runs of this process still going and waits for them to end (their
   * callbacks go out with status `canceled`, without retries after this), then closes the
   * connections kept open to the router and the server and sends the spans not sent yet.
   */
  async close(): Promise<void> {
    await this.closeLocalRuns();
    await this.router?.close();
    await this.server?.close();
    await this.registry?.close();
    const telemetry = await this.telemetry?.catch(() => undefined);
    await telemetry?.shutdown();
    this.telemetry = undefined;
  }

  protected runHere = (
    workflow: WorkflowDefinition,
    inputs: Record<string, unknown>,
    options: ExecuteOptions,
  ): Promise<RunResult> => this.run(workflow, inputs, options);

  protected localSettings(): { mode: string; callbackSecret: string | undefined } {
    const secret = this.options.callbackSecret ?? this.environment['WEFT_CALLBACK_SECRET'];
    return { mode: this.options.executionMode ?? 'local', callbackSecret: secret };
  }

  private runInCloud(
    workflow: WorkflowDefinition,
    inputs: Record<string, unknown>,
    options: ExecuteOptions,
  ): Promise<RunResult> {
    checkCloudRunOptions(options);
    const api = this.cloudApi('cloud mode');
    const run = cloudRunOptions(options, (event) => logEvent(this.logger, workflow.name, event));
    return runInCloud(api, workflow, this.shelf.everyVersion(), inputs, run);
  }

  /** The invoker of a `hybrid` run (undefined in the other modes): see {@link hybridInvokerFor}. */
  private hybridInvoker(options: ExecuteOptions): HybridInvoker | undefined {
    return hybridInvokerFor(this.options, options, {
      local: this.invoker,
      router: this.router,
      cloud: () => new CloudInvoker(this.cloudApi('hybrid mode')),
      cloudPlaced: (target) => this.cloudConnectors.placesInCloud(target),
    });
  }

  /** The server client; throws `VALIDATION` before any request when the key or URL is missing. */
  protected cloudApi(purpose: string): CloudApi {
    if (!this.server) {
      const settings = cloudSettings(this.options, this.environment, purpose);
      this.server = new CloudApi({ baseUrl: settings.cloudUrl, apiKey: settings.apiKey });
    }
    return this.server;
  }

  /** The guardrails interceptor when `workflow` or a workflow it may call sets guardrails. */
  private guardrailsFor(workflow: WorkflowDefinition): RunInterceptor | undefined {
    if (!needsGuardrails([workflow]) && !needsGuardrails(this.shelf.everyVersion()))
      return undefined;
    return (this.guardrails ??= guardrailsInterceptor(this.options.guardrails));
  }
}
