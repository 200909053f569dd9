import { describe, expect, it } from 'vitest';
import { telemetryOptionsFromEnv } from './env.js';

describe('telemetry settings from the OpenTelemetry variables', () => {
  it('turns nothing on without an endpoint', () => {
    expect(telemetryOptionsFromEnv({}, 'weft-server')).toEqual({ serviceName: 'weft-server' });
  });

  it('derives the signal URLs, protocol, headers, sampler and service name', () => {
    const options = telemetryOptionsFromEnv(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=a%20b,Tenant=t1',
        OTEL_SERVICE_NAME: 'orders',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
      },
      'weft-server',
    );
    expect(options).toEqual({
      serviceName: 'orders',
      traces: {
        url: 'http://collector:4318/v1/traces',
        protocol: 'http/json',
        headers: { 'x-api-key': 'a b', tenant: 't1' },
        sampler: { kind: 'ratio', ratio: 0.25, parentBased: true },
      },
      metrics: {
        url: 'http://collector:4318/v1/metrics',
        protocol: 'http/json',
        headers: { 'x-api-key': 'a b', tenant: 't1' },
        intervalMs: 60_000,
      },
    });
  });

  it('lets a signal endpoint or exporter setting override the base, and OTEL_SDK_DISABLED win', () => {
    const options = telemetryOptionsFromEnv(
      {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/v1/traces',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_METRICS_EXPORTER: 'none',
      },
      'x',
    );
    expect(options.traces?.url).toBe('https://traces.example/v1/traces');
    expect(options.traces?.protocol).toBe('http/protobuf');
    expect(options.metrics).toBeUndefined();
    expect(
      telemetryOptionsFromEnv(
        { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' },
        'x',
      ),
    ).toEqual({ serviceName: 'x' });
  });

  it('refuses what it cannot honour, naming the variable', () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    for (const [env, field] of [
      [{ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL'],
      [{ ...base, OTEL_TRACES_SAMPLER: 'jaeger_remote' }, 'OTEL_TRACES_SAMPLER'],
      [
        { ...base, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' },
        'OTEL_TRACES_SAMPLER_ARG',
      ],
      [{ ...base, OTEL_TRACES_EXPORTER: 'zipkin' }, 'OTEL_TRACES_EXPORTER'],
      [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'],
      [{ ...base, OTEL_EXPORTER_OTLP_HEADERS: 'novalue' }, 'OTEL_EXPORTER_OTLP_HEADERS'],
      [{ ...base, OTEL_SDK_DISABLED: 'maybe' }, 'OTEL_SDK_DISABLED'],
    ] as const) {
      expect(() => telemetryOptionsFromEnv(env, 'x')).toThrow(
        expect.objectContaining({
          code: 'VALIDATION',
          details: expect.objectContaining({ field }),
        }),
      );
    }
  });
});
