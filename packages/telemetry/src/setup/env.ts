import { ValidationError } from '@weft/core';
import type { OtlpProtocol, SamplerSetting, TelemetryOptions } from './options.js';

/** The environment variables read (a plain map: `process.env`, or a test's). */
export type TelemetryEnv = Readonly<Record<string, string | undefined>>;

const PROTOCOLS: readonly string[] = ['http/json', 'http/protobuf'];

/**
 * Telemetry options from the standard OpenTelemetry variables (docs/observability.md#settings):
 * `OTEL_SDK_DISABLED`, `OTEL_SERVICE_NAME`, `OTEL_EXPORTER_OTLP_[TRACES_|METRICS_]ENDPOINT`,
 * `…_PROTOCOL` (`http/json`, `http/protobuf`), `…_HEADERS`, `OTEL_TRACES_EXPORTER` and
 * `OTEL_METRICS_EXPORTER` (`otlp` or `none`), `OTEL_TRACES_SAMPLER[_ARG]`,
 * `OTEL_METRIC_EXPORT_INTERVAL`. Tracing is on only when an endpoint is set. A value that cannot
 * be honoured (the `grpc` protocol, an unknown sampler, a ratio outside 0..1) throws
 * `VALIDATION` naming the variable, rather than being ignored.
 */
export function telemetryOptionsFromEnv(
  env: TelemetryEnv,
  defaultServiceName: string,
): TelemetryOptions {
  const serviceName = nonEmpty(env['OTEL_SERVICE_NAME']) ?? defaultServiceName;
  if (flag(env, 'OTEL_SDK_DISABLED')) return { serviceName };
  const options: TelemetryOptions = { serviceName };
  const base = nonEmpty(env['OTEL_EXPORTER_OTLP_ENDPOINT'])?.replace(/\/+$/, '');
  const traces =
    nonEmpty(env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) ??
    (base === undefined ? undefined : `${base}/v1/traces`);
  if (traces !== undefined && exporterOn(env, 'OTEL_TRACES_EXPORTER')) {
    options.traces = {
      url: checkUrl(traces, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'),
      protocol: protocolOf(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'),
      headers: headersOf(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'),
      sampler: samplerOf(env),
    };
  }
  const metrics =
    nonEmpty(env['OTEL_EXPORTER_OTLP_METRICS_ENDPOINT']) ??
    (base === undefined ? undefined : `${base}/v1/metrics`);
  if (metrics !== undefined && exporterOn(env, 'OTEL_METRICS_EXPORTER')) {
    const interval = nonEmpty(env['OTEL_METRIC_EXPORT_INTERVAL']);
    const intervalMs = interval === undefined ? 60_000 : Number(interval);
    if (!Number.isInteger(intervalMs) || intervalMs < 100) {
      throw invalid('OTEL_METRIC_EXPORT_INTERVAL', 'an integer of milliseconds, at least 100');
    }
    options.metrics = {
      url: checkUrl(metrics, 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT'),
      protocol: protocolOf(env, 'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL'),
      headers: headersOf(env, 'OTEL_EXPORTER_OTLP_METRICS_HEADERS'),
      intervalMs,
    };
  }
  return options;
}

function nonEmpty(value: string | undefined): string | undefined {
  const text = value?.trim();
  return text === undefined || text === '' ? undefined : text;
}

function invalid(name: string, expected: string): ValidationError {
  return new ValidationError(`${name} must be ${expected}`, { field: name, constraint: 'format' });
}

function flag(env: TelemetryEnv, name: string): boolean {
  const value = nonEmpty(env[name])?.toLowerCase();
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw invalid(name, '"true" or "false"');
}

function exporterOn(env: TelemetryEnv, name: string): boolean {
  const value = nonEmpty(env[name])?.toLowerCase() ?? 'otlp';
  if (value === 'otlp') return true;
  if (value === 'none') return false;
  throw invalid(name, '"otlp" or "none" (weft exports over OTLP only)');
}

function checkUrl(text: string, name: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(name, 'an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalid(name, 'an absolute http(s) URL');
  return url.toString();
}

function protocolOf(env: TelemetryEnv, specific: string): OtlpProtocol {
  const name = nonEmpty(env[specific]) !== undefined ? specific : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const value = nonEmpty(env[name]) ?? 'http/protobuf';
  if (!PROTOCOLS.includes(value)) {
    throw invalid(name, '"http/protobuf" or "http/json" (grpc is not supported)');
  }
  return value as OtlpProtocol;
}

/** `key=value,key2=value2`, values URL-encoded (the OpenTelemetry format). */
function headersOf(env: TelemetryEnv, specific: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of ['OTEL_EXPORTER_OTLP_HEADERS', specific]) {
    const text = nonEmpty(env[name]);
    if (text === undefined) continue;
    for (const pair of text.split(',')) {
      const eq = pair.indexOf('=');
      const key = pair.slice(0, eq).trim();
      if (eq <= 0 || key === '') throw invalid(name, 'a list of key=value pairs');
      try {
        headers[key.toLowerCase()] = decodeURIComponent(pair.slice(eq + 1).trim());
      } catch {
        throw invalid(name, 'a list of key=value pairs with URL-encoded values');
      }
    }
  }
  return headers;
}

function samplerOf(env: TelemetryEnv): SamplerSetting {
  const name = nonEmpty(env['OTEL_TRACES_SAMPLER'])?.toLowerCase() ?? 'parentbased_always_on';
  const parentBased = name.startsWith('parentbased_');
  const kind = parentBased ? name.slice('parentbased_'.length) : name;
  if (kind === 'always_on' || kind === 'always_off') return { kind, parentBased };
  if (kind !== 'traceidratio') {
    throw invalid(
      'OTEL_TRACES_SAMPLER',
      'always_on, always_off, traceidratio or their parentbased_ forms',
    );
  }
  const arg = nonEmpty(env['OTEL_TRACES_SAMPLER_ARG']);
  const ratio = arg === undefined ? 1 : Number(arg);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) {
    throw invalid('OTEL_TRACES_SAMPLER_ARG', 'a number from 0 to 1');
  }
  return { kind: 'ratio', ratio, parentBased };
}
