import { ValidationError } from '@weft/core';
import type { RunResult, WorkflowDefinition } from '@weft/engine';
import type { Telemetry, TelemetryOptions } from '@weft/telemetry/setup';

/**
 * `observability` of {@link WeftOptions} (options (packages/sdk/README.md#options) `{enabled, endpoint,
 * sample_rate}`): traces of local runs (a span per run, step and action call) over OTLP, and the
 * run metrics `weft.metrics()` reads. Off by default, and then nothing of OpenTelemetry is loaded.
 */
export interface ObservabilityOptions {
  /** Default false. */
  enabled?: boolean;
  /**
   * OTLP/HTTP base URL (spans go to `<endpoint>/v1/traces`). Default
   * `OTEL_EXPORTER_OTLP_ENDPOINT` (or `…_TRACES_ENDPOINT`) of the environment.
   */
  endpoint?: string;
  /** Share of runs traced, 0 to 1 (`sample_rate`). Default 1, or `OTEL_TRACES_SAMPLER_ARG`. */
  sampleRate?: number;
  /** `http/protobuf` (default, or `OTEL_EXPORTER_OTLP_PROTOCOL`) or `http/json`. */
  protocol?: 'http/json' | 'http/protobuf';
  /** `service.name`. Default `OTEL_SERVICE_NAME`, else `weft-sdk`. */
  serviceName?: string;
  /** A span exporter of your own (an OpenTelemetry `SpanExporter`) instead of OTLP. */
  exporter?: object;
}

/** Checks `observability` (throws `VALIDATION` naming the field). */
export function checkObservability(options: ObservabilityOptions | undefined): void {
  if (options === undefined) return;
  const rate = options.sampleRate;
  if (rate !== undefined && (typeof rate !== 'number' || !(rate >= 0 && rate <= 1))) {
    throw new ValidationError(`observability.sampleRate must be a number from 0 to 1`, {
      field: 'observability.sampleRate',
      constraint: 'range',
    });
  }
  if (options.endpoint !== undefined && !/^https?:\/\/[^/]/.test(options.endpoint)) {
    throw new ValidationError('observability.endpoint must be an http(s) URL', {
      field: 'observability.endpoint',
      constraint: 'format',
    });
  }
}

/**
 * Starts telemetry for `options` when enabled, over the OpenTelemetry variables of `env`
 * (explicit options win). An enabled setting with no endpoint anywhere and no exporter is
 * refused: spans would go nowhere.
 */
export async function startObservability(
  options: ObservabilityOptions | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Telemetry | undefined> {
  if (options?.enabled !== true) return undefined;
  const setup = await import('@weft/telemetry/setup');
  const base: TelemetryOptions = setup.telemetryOptionsFromEnv(
    options.endpoint === undefined ? env : { ...env, OTEL_SDK_DISABLED: undefined },
    'weft-sdk',
  );
  const traces = { ...base.traces };
  if (options.endpoint !== undefined)
    traces.url = `${options.endpoint.replace(/\/+$/, '')}/v1/traces`;
  if (options.protocol !== undefined) traces.protocol = options.protocol;
  if (options.sampleRate !== undefined)
    traces.sampler = { kind: 'ratio', ratio: options.sampleRate, parentBased: true };
  if (options.exporter !== undefined)
    traces.exporter = options.exporter as NonNullable<
      NonNullable<TelemetryOptions['traces']>['exporter']
    >;
  if (traces.url === undefined && traces.exporter === undefined) {
    throw new ValidationError(
      'observability.enabled needs observability.endpoint, OTEL_EXPORTER_OTLP_ENDPOINT or an exporter',
      { field: 'observability.endpoint', constraint: 'required' },
    );
  }
  return setup.startTelemetry({
    ...base,
    serviceName: options.serviceName ?? base.serviceName,
    traces,
    // One client, one process: its spans are the process's unless an SDK is registered already.
    global: true,
  });
}

/**
 * A local run under telemetry: in the run's span when tracing is on (steps and action calls nest
 * under it), then counted as ended with its status.
 */
export async function observedRun(
  telemetry: Telemetry,
  run: { executionId: string; workflow: WorkflowDefinition; mode: string },
  runIt: () => Promise<RunResult>,
): Promise<RunResult> {
  const { tracing } = telemetry;
  const { workflow } = run;
  const result = await (tracing
    ? tracing.traceRun(
        {
          executionId: run.executionId,
          workflow: workflow.name,
          version: workflow.version,
          mode: run.mode,
        },
        undefined,
        runIt,
        // The client's log lines of the run carry its trace id (an active context; local runs
        // are not the server's hot path).
        { activate: true },
      )
    : runIt());
  telemetry.metrics.executionEnded(workflow.name, result.status);
  return result;
}
