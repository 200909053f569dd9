import {
  EnvironmentSecretsProvider,
  suggestion,
  ValidationError,
  type ActionInvoker,
  type SecretsProvider,
  type StreamEvent,
} from '@weft/core';
import { DryRunInvoker, runWorkflow, type RunResult, type WorkflowDefinition } from '@weft/engine';
import semver from 'semver';
import type { Logger } from 'pino';
import type { ActionHandler } from '../handlers/handler.js';
import { LocalInvoker } from '../invoker/local-invoker.js';
import { RouterInvoker } from '../invoker/router-invoker.js';
import { processEnvironment } from './environment.js';
import { loadWorkflowFile } from './load.js';
import { createLogger, logEvent } from './logging.js';
import { checkWeftOptions, type WeftOptions } from './options.js';

/** Options of one execution. */
export interface ExecuteOptions {
  /** Receives every §2.11 event as it happens. */
  onEvent?: (event: StreamEvent) => void;
  /** Cancels the execution. */
  signal?: AbortSignal;
  /** Answer actions from `testing.dryRun.mockData` (also on when the workflow's dryRun is enabled). */
  dryRun?: boolean;
  /** Trigger data: `trigger.payload` and `trigger.event`. */
  trigger?: { payload?: unknown; event?: unknown };
  /** Id of the execution (a UUID by default). */
  executionId?: string;
}

/**
 * The weft SDK client (SPEC.md Appendix B): register connectors and handlers, load workflow
 * files, execute workflows. This release runs them in `local` mode: actions run in this process
 * (function handlers), as child processes (shell connectors) or over HTTP (http connectors).
 */
export class Weft {
  /** The invoker that runs actions; connectors and handlers are registered on it. */
  readonly invoker: LocalInvoker;
  /** In `self_hosted` mode: the invoker that sends every action step to the router. */
  readonly router: RouterInvoker | undefined;
  readonly logger: Logger;
  private readonly loaded = new Map<string, WorkflowDefinition[]>();
  private readonly environment: Record<string, string | undefined>;

  constructor(private readonly options: WeftOptions = {}) {
    checkWeftOptions(options);
    this.environment = {
      ...(options.inheritEnvironment === false ? {} : processEnvironment()),
      ...options.environment,
    };
    this.invoker = new LocalInvoker({
      environment: this.environment,
      ...(options.timeout !== undefined ? { defaultTimeout: options.timeout } : {}),
    });
    this.router =
      options.executionMode === 'self_hosted'
        ? new RouterInvoker({
            routerUrl: options.routerUrl!,
            ...(options.routerTls ? { tls: options.routerTls } : {}),
          })
        : undefined;
    this.logger = createLogger(
      options.logLevel ?? 'info',
      options.logFormat ?? 'json',
      options.logDestination ?? process.stderr,
    );
  }

  /** Registers a connector from an in-memory definition (Appendix B.1). */
  registerConnector(definition: object): this {
    this.invoker.registerConnector(definition);
    return this;
  }

  /** Registers the connectors of a file (YAML or JSON). */
  async loadConnector(file: string): Promise<this> {
    await this.invoker.loadConnectorFile(file);
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
    const workflows = await loadWorkflowFile(file, { knownWorkflows: [...this.loaded.keys()] });
    for (const workflow of workflows) {
      const versions = (this.loaded.get(workflow.name) ?? []).filter(
        (w) => w.version !== workflow.version,
      );
      this.loaded.set(workflow.name, [...versions, workflow]);
    }
    return workflows;
  }

  /** Adds already loaded definitions. */
  addWorkflows(workflows: Iterable<WorkflowDefinition>): this {
    for (const workflow of workflows)
      this.loaded.set(workflow.name, [...(this.loaded.get(workflow.name) ?? []), workflow]);
    return this;
  }

  /** Every loaded workflow (the highest version of each name). */
  *workflows(): IterableIterator<WorkflowDefinition> {
    for (const name of this.loaded.keys()) yield this.find(name)!;
  }

  /** Executes the loaded workflow `name` with `inputs`; never rejects on a workflow failure. */
  async execute(
    name: string,
    inputs: Record<string, unknown> = {},
    options: ExecuteOptions = {},
  ): Promise<RunResult> {
    const workflow = this.find(name);
    if (!workflow) {
      throw new ValidationError(
        `no workflow named "${name}" is loaded${suggestion(name, this.loaded.keys())}`,
        {
          field: 'name',
          constraint: 'loaded',
        },
      );
    }
    return this.run(workflow, inputs, options);
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

  /** Runs a definition directly. */
  async run(
    workflow: WorkflowDefinition,
    inputs: Record<string, unknown>,
    options: ExecuteOptions = {},
  ): Promise<RunResult> {
    const dryRun = workflow.testing?.dryRun;
    const useMocks = options.dryRun === true || dryRun?.enabled === true;
    const mocks = useMocks
      ? new DryRunInvoker(dryRun ?? { mockConnectors: true }, this.actionInvoker())
      : undefined;
    const invoker: ActionInvoker = mocks ?? this.actionInvoker();
    const retry = this.options.retryConfig;
    return runWorkflow(workflow, inputs, {
      invoker,
      environment: this.environment,
      secrets: this.secretsFor(mocks !== undefined && dryRun?.mockConnectors !== false),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.trigger ? { trigger: options.trigger } : {}),
      ...(options.executionId ? { executionId: options.executionId } : {}),
      ...(retry
        ? {
            defaultRetry: {
              max_attempts: retry.maxAttempts ?? 1,
              backoff: retry.backoff ?? 'exponential',
              backoff_factor: retry.backoffFactor ?? 1,
            },
          }
        : {}),
      timeoutFor: (target, action) =>
        (
          invoker as { timeoutFor?: (t: typeof target, a: string) => number | undefined }
        ).timeoutFor?.(target, action),
      resolveWorkflow: (called, range) => this.find(called, range),
      ...(mocks
        ? { agents: new DryRunInvoker({ ...dryRun, mockConnectors: true }, undefined) }
        : {}),
      onEvent: (event) => {
        logEvent(this.logger, workflow.name, event);
        options.onEvent?.(event);
      },
    });
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

  /** The invoker real actions go through (the testing kit swaps it for mocks). */
  protected actionInvoker(): ActionInvoker {
    return this.router ?? this.invoker;
  }

  /** Closes connections kept open to the router (self_hosted mode). */
  async close(): Promise<void> {
    await this.router?.close();
  }

  private find(name: string, range?: string): WorkflowDefinition | undefined {
    const versions = this.loaded.get(name) ?? [];
    const fitting =
      range === undefined ? versions : versions.filter((w) => semver.satisfies(w.version, range));
    return [...fitting].sort((a, b) => semver.compare(b.version, a.version))[0];
  }
}
