import { ValueType } from '@opentelemetry/api';
import { hrTime, millisToHrTime } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  DataPointType,
  type HistogramMetricData,
  type MetricProducer,
} from '@opentelemetry/sdk-metrics';
import { SCOPE } from '../attributes.js';
import type { HistogramTally } from '../metrics.js';

/**
 * Hands `tallies` to a metric reader at each collection (its `metricProducers`), as histograms
 * of weft's scope, cumulative since each series' first observation: what the SDK's own
 * histogram with the same bucket boundaries would report.
 */
export function tallyProducer(
  resource: Resource,
  tallies: readonly HistogramTally[],
): MetricProducer {
  return {
    async collect() {
      const now = hrTime();
      const metrics: HistogramMetricData[] = [];
      for (const tally of tallies) {
        const { name, description, unit, boundaries } = tally.descriptor;
        const series = [...tally.series()];
        // As the SDK, nothing of a histogram before its first observation.
        if (series.length === 0) continue;
        metrics.push({
          descriptor: { name, description, unit, valueType: ValueType.DOUBLE },
          aggregationTemporality: AggregationTemporality.CUMULATIVE,
          dataPointType: DataPointType.HISTOGRAM,
          dataPoints: series.map((one) => ({
            attributes: one.labels,
            startTime: millisToHrTime(one.startMs),
            endTime: now,
            value: {
              buckets: { boundaries: [...boundaries], counts: [...one.counts] },
              count: one.count,
              sum: one.sum,
              min: one.min,
              max: one.max,
            },
          })),
        });
      }
      return {
        resourceMetrics: { resource, scopeMetrics: [{ scope: { name: SCOPE }, metrics }] },
        errors: [],
      };
    },
  };
}
