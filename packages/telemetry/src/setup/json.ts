import {
  DataPointType,
  type Histogram,
  type MetricData,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';

/** One series of a metric: its labels and value (counters, gauges) or buckets (histograms). */
export interface MetricPointJson {
  labels: Record<string, string | number | boolean>;
  /** Counters and gauges. */
  value?: number;
  /** Histograms: observations, their sum, and cumulative counts per upper bound (`+Inf` last). */
  count?: number;
  sum?: number;
  buckets?: { le: number | '+Inf'; count: number }[];
}

/** One instrument, as `GET /metrics` answers it with `Accept: application/json`. */
export interface MetricJson {
  name: string;
  type: 'counter' | 'gauge' | 'histogram';
  description: string;
  unit: string;
  points: MetricPointJson[];
}

/** The JSON rendering of the instruments (docs/observability.md#metrics): same names and labels. */
export interface MetricsJson {
  metrics: MetricJson[];
}

/**
 * Renders collected metrics as {@link MetricsJson}: the SDK's instruments in the order they were
 * registered, then weft's tallied histograms.
 */
export function metricsJson(collected: ResourceMetrics): MetricsJson {
  const metrics: MetricJson[] = [];
  for (const scope of collected.scopeMetrics)
    for (const metric of scope.metrics) metrics.push(metricJson(metric));
  return { metrics };
}

function metricJson(metric: MetricData): MetricJson {
  const { name, description, unit } = metric.descriptor;
  const base = { name, description, unit };
  switch (metric.dataPointType) {
    case DataPointType.HISTOGRAM:
      return {
        ...base,
        type: 'histogram',
        points: metric.dataPoints.map((point) => ({
          labels: { ...point.attributes } as MetricPointJson['labels'],
          ...histogram(point.value),
        })),
      };
    case DataPointType.SUM:
    case DataPointType.GAUGE:
      return {
        ...base,
        type:
          metric.dataPointType === DataPointType.SUM && metric.isMonotonic ? 'counter' : 'gauge',
        points: metric.dataPoints.map((point) => ({
          labels: { ...point.attributes } as MetricPointJson['labels'],
          value: point.value,
        })),
      };
    default:
      // Exponential histograms: weft makes none.
      return { ...base, type: 'histogram', points: [] };
  }
}

function histogram(value: Histogram): Pick<MetricPointJson, 'count' | 'sum' | 'buckets'> {
  const { boundaries, counts } = value.buckets;
  let running = 0;
  const buckets: { le: number | '+Inf'; count: number }[] = counts.map((count, i) => {
    running += count;
    return { le: i < boundaries.length ? boundaries[i]! : '+Inf', count: running };
  });
  return { count: value.count, sum: value.sum ?? 0, buckets };
}
