import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { startTelemetry } from './start.js';

/** An exporter whose collector never answers: no export ever ends. */
const stuck: SpanExporter = {
  export: () => {},
  shutdown: () => new Promise(() => {}),
};

describe('telemetry shutdown', () => {
  it('gives up on a collector that never answers, saying once what was dropped', async () => {
    const telemetry = startTelemetry({
      serviceName: 'test',
      traces: { exporter: stuck, simple: true },
      shutdownTimeoutMs: 20,
      global: false,
    });
    const dropped: string[] = [];
    await telemetry.shutdown((message) => dropped.push(message));
    expect(dropped).toEqual([
      'telemetry: the collector did not take the last spans and metrics within 20 ms: they were dropped',
    ]);
  });

  it('says nothing when everything was sent', async () => {
    const telemetry = startTelemetry({ serviceName: 'test', global: false });
    const dropped: string[] = [];
    await telemetry.shutdown((message) => dropped.push(message));
    expect(dropped).toEqual([]);
  });
});
