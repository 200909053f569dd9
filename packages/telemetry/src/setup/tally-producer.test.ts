import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { SCOPE } from '../attributes.js';
import { ACTION_DURATIONS, HistogramTally } from '../metrics.js';
import { metricsJson } from './json.js';
import { tallyProducer } from './tally-producer.js';

const resource = resourceFromAttributes({ 'service.name': 'test' });
const serializer = new PrometheusSerializer(undefined, false, undefined, true, true);

/** Values on, below, between and above the boundaries, for two label sets. */
const OBSERVED: [Record<string, string>, number][] = [
  [{ plugin: 'echo', action: 'run', status: 'success' }, 0.0004],
  [{ plugin: 'echo', action: 'run', status: 'success' }, 0.001],
  [{ plugin: 'echo', action: 'run', status: 'success' }, 0.0010001],
  [{ plugin: 'echo', action: 'run', status: 'success' }, 0.3],
  [{ plugin: 'echo', action: 'run', status: 'success' }, 300],
  [{ plugin: 'echo', action: 'run', status: 'failed', code: 'TIMEOUT' }, 301],
  [{ plugin: 'echo', action: 'run', status: 'failed', code: 'TIMEOUT' }, 0],
];

/** What a reader of an SDK histogram with the same name, unit and boundaries collects. */
async function sdkHistogram() {
  const reader = new PrometheusExporter({ preventServerStart: true });
  const provider = new MeterProvider({ resource, readers: [reader] });
  const histogram = provider.getMeter(SCOPE).createHistogram(ACTION_DURATIONS.name, {
    description: ACTION_DURATIONS.description,
    unit: ACTION_DURATIONS.unit,
    advice: { explicitBucketBoundaries: [...ACTION_DURATIONS.boundaries] },
  });
  for (const [labels, value] of OBSERVED) histogram.record(value, labels);
  const { resourceMetrics } = await reader.collect();
  await provider.shutdown();
  return resourceMetrics;
}

/** What a reader of the same observations tallied by weft collects. */
async function tallied() {
  const tally = new HistogramTally(ACTION_DURATIONS);
  for (const [labels, value] of OBSERVED) {
    tally.record(Object.values(labels).join('\n'), () => labels, value);
  }
  const reader = new PrometheusExporter({
    preventServerStart: true,
    metricProducers: [tallyProducer(resource, [tally])],
  });
  const provider = new MeterProvider({ resource, readers: [reader] });
  const { resourceMetrics } = await reader.collect();
  await provider.shutdown();
  return resourceMetrics;
}

describe('tallyProducer', () => {
  it('reports what the SDK histogram of the same observations reports', async () => {
    const [sdk, ours] = [await sdkHistogram(), await tallied()];
    const text = serializer.serialize(ours);
    expect(text).toBe(serializer.serialize(sdk));
    expect(text).toMatch(/^weft_action_duration_seconds_bucket\{[^}]*le="0\.001"\} 2$/m);
    expect(text).toMatch(/^weft_action_duration_seconds_count\{[^}]*code="TIMEOUT"[^}]*\} 2$/m);
    expect(metricsJson(ours)).toEqual(metricsJson(sdk));
    const [point] = ours.scopeMetrics[0]!.metrics[0]!.dataPoints;
    expect(point!.value).toMatchObject({ count: 5, min: 0.0004, max: 300 });
  });

  it('reports nothing before the first observation, as the SDK does', async () => {
    const reader = new PrometheusExporter({
      preventServerStart: true,
      metricProducers: [tallyProducer(resource, [new HistogramTally(ACTION_DURATIONS)])],
    });
    const provider = new MeterProvider({ resource, readers: [reader] });
    const reader2 = new PrometheusExporter({ preventServerStart: true });
    const provider2 = new MeterProvider({ resource, readers: [reader2] });
    provider2.getMeter(SCOPE).createHistogram(ACTION_DURATIONS.name, {
      description: ACTION_DURATIONS.description,
      unit: ACTION_DURATIONS.unit,
    });
    const [ours, sdk] = [await reader.collect(), await reader2.collect()];
    expect(serializer.serialize(ours.resourceMetrics)).toBe(
      serializer.serialize(sdk.resourceMetrics),
    );
    await Promise.all([provider.shutdown(), provider2.shutdown()]);
  });
});
