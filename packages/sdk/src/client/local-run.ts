import type { ActionInvoker, SecretsProvider } from '@weft/core';
import {
  runWorkflow,
  type DryRunInterceptor,
  type RunInterceptor,
  type RunResult,
  type WorkflowDefinition,
} from '@weft/engine';
import type { Logger } from 'pino';
import type { HybridInvoker } from '../invoker/hybrid-invoker.js';
import type { ExecuteOptions } from './execute-options.js';
import { logEvent } from './logging.js';
import type { WeftOptions } from './options.js';

/** One run in this process, as {@link runLocally} makes it. */
export interface LocalRun {
  workflow: WorkflowDefinition;
  inputs: Record<string, unknown>;
  options: ExecuteOptions;
  /** The invoker of the run's steps (the hybrid one places each step). */
  invoker: ActionInvoker;
  hybrid: HybridInvoker | undefined;
  /** Answers steps from `mockData` in a dry run. */
  mocks: DryRunInterceptor | undefined;
  /** The run's interceptors, outermost first. */
  chain: RunInterceptor[];
  /** The client's options: retry policy, identity, agent runner. */
  client: WeftOptions;
  environment: Record<string, string | undefined>;
  secrets: SecretsProvider;
  logger: Logger;
  /** The loaded workflow of a name and version range (subworkflow steps). */
  find: (name: string, range?: string) => WorkflowDefinition | undefined;
}

/** Runs a workflow in this process with the client's settings: the engine's run options. */
export function runLocally(run: LocalRun): Promise<RunResult> {
  const { workflow, options, invoker, hybrid, mocks, chain } = run;
  const { retryConfig: retry, identity, agents, maxForEachItems, toolApprovals } = run.client;
  return runWorkflow(workflow, run.inputs, {
    invoker,
    environment: run.environment,
    secrets: run.secrets,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.trigger ? { trigger: options.trigger } : {}),
    ...(options.executionId ? { executionId: options.executionId } : {}),
    ...(maxForEachItems !== undefined ? { maxForEachItems } : {}),
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
      mocks?.mocked(target, action)
        ? undefined
        : (
            invoker as { timeoutFor?: (t: typeof target, a: string) => number | undefined }
          ).timeoutFor?.(target, action),
    resolveWorkflow: (called, range) => run.find(called, range),
    ...(hybrid ? { invokerFor: (step) => hybrid.forStep(step) } : {}),
    ...(identity ? { principal: identity } : {}),
    // In the order of `standardInterceptors` (a refused step is not answered from mockData).
    ...(chain.length > 0 ? { interceptors: chain } : {}),
    // Agent steps of a dry run are answered from mockData or refused, never run.
    ...(mocks ? { agents: mocks.refusing } : agents ? { agents } : {}),
    ...(toolApprovals ? { toolApprovals } : {}),
    // Logs and `observe` see every event; `onEvent`, those `execution.streaming` lets through.
    observe: (event) => {
      if (options.logSteps !== false) logEvent(run.logger, workflow.name, event);
      options.observe?.(event);
    },
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
  });
}
