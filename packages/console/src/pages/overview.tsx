import type { ExecutionStatsSchema } from '@weft/core';
import type { WeftClient } from '@weft/sdk/client';
import { formatMs } from '../format.js';
import { useLoad } from '../load.js';
import { BASE, Link } from '../router.js';
import { ErrorBox, Loading, Page } from '../ui.js';

/** Statuses in the order they stack, bottom up. */
const ORDER = ['completed', 'failed', 'canceled', 'waiting', 'running', 'pending'] as const;
const HOUR_MS = 3_600_000;

/** One hour of the chart: its start and the count of each status. */
interface Hour {
  start: number;
  counts: Record<string, number>;
  total: number;
}

/** The hours from `since` to `until` (UTC hours, the partial first one included), counts filled. */
export function hoursOf(stats: ExecutionStatsSchema): Hour[] {
  const first = Math.floor(Date.parse(stats.since) / HOUR_MS) * HOUR_MS;
  const end = Date.parse(stats.until);
  const hours: Hour[] = [];
  for (let start = first; start < end; start += HOUR_MS)
    hours.push({ start, counts: {}, total: 0 });
  for (const row of stats.hours) {
    const start = Date.parse(`${row.hour}:00:00Z`);
    const hour = hours.find((h) => h.start === start);
    if (!hour) continue;
    hour.counts[row.status] = (hour.counts[row.status] ?? 0) + row.count;
    hour.total += row.count;
  }
  return hours;
}

/** Executions per hour, stacked by status: an SVG image with its numbers in its name. */
function HourChart({ stats }: { stats: ExecutionStatsSchema }) {
  const hours = hoursOf(stats);
  const max = Math.max(1, ...hours.map((h) => h.total));
  const total = hours.reduce((sum, h) => sum + h.total, 0);
  const byStatus = ORDER.map(
    (status) => [status, hours.reduce((sum, h) => sum + (h.counts[status] ?? 0), 0)] as const,
  ).filter(([, count]) => count > 0);
  const width = 720;
  const height = 180;
  const slot = width / Math.max(1, hours.length);
  const name = `Executions per hour by status, last 24 hours: ${total} in all${
    byStatus.length ? `, ${byStatus.map(([status, count]) => `${count} ${status}`).join(', ')}` : ''
  }`;
  return (
    <figure class="chart">
      <svg
        role="img"
        aria-label={name}
        viewBox={`0 0 ${width} ${height + 20}`}
        width="100%"
        preserveAspectRatio="xMidYMid meet"
      >
        <line x1={0} x2={width} y1={height} y2={height} class="axis" />
        {hours.map((hour, i) => {
          let y = height;
          return (
            <g key={hour.start} data-hour={new Date(hour.start).toISOString()}>
              {ORDER.filter((status) => hour.counts[status]).map((status) => {
                const h = (hour.counts[status]! / max) * (height - 10);
                y -= h;
                return (
                  <rect
                    key={status}
                    class={`bar bar-${status}`}
                    data-status={status}
                    data-count={hour.counts[status]}
                    x={i * slot + 2}
                    y={y}
                    width={Math.max(1, slot - 4)}
                    height={h}
                  />
                );
              })}
              {i % 6 === 0 && i < hours.length - 3 ? (
                <text x={i * slot + 2} y={height + 15} class="tick">
                  {new Date(hour.start).toLocaleTimeString([], {
                    hour: '2-digit',
                    minute: '2-digit',
                  })}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <figcaption>
        <ul class="legend" aria-label="Statuses">
          {byStatus.map(([status, count]) => (
            <li key={status}>
              <span class={`swatch bar-${status}`} aria-hidden="true" /> {status}: {count}
            </li>
          ))}
        </ul>
        {total === 0 ? <p class="muted">No execution in the last 24 hours.</p> : null}
      </figcaption>
    </figure>
  );
}

/** p50 and p95 duration per workflow: bars on one scale, and the same numbers in a table. */
function Durations({ stats }: { stats: ExecutionStatsSchema }) {
  const rows = stats.workflows;
  if (rows.length === 0) return <p class="muted">No execution ended in the last 24 hours.</p>;
  const max = Math.max(1, ...rows.map((r) => r.p95_ms));
  const width = 720;
  const label = 200;
  const row = 28;
  const scale = (ms: number) => (ms / max) * (width - label - 90);
  return (
    <>
      <svg
        role="img"
        aria-label={`Duration per workflow, p50 and p95: ${rows
          .map((r) => `${r.workflow} ${formatMs(r.p50_ms)} and ${formatMs(r.p95_ms)}`)
          .join('; ')}`}
        viewBox={`0 0 ${width} ${rows.length * row + 4}`}
        width="100%"
      >
        {rows.map((r, i) => (
          <g key={r.workflow} data-workflow={r.workflow}>
            <text x={0} y={i * row + 18} class="label">
              {r.workflow}
            </text>
            <rect
              class="bar p95"
              x={label}
              y={i * row + 6}
              width={Math.max(1, scale(r.p95_ms))}
              height={16}
            />
            <rect
              class="bar p50"
              x={label}
              y={i * row + 6}
              width={Math.max(1, scale(r.p50_ms))}
              height={16}
            />
            <text x={label + scale(r.p95_ms) + 6} y={i * row + 18} class="tick">
              {formatMs(r.p95_ms)}
            </text>
          </g>
        ))}
      </svg>
      <table>
        <caption class="visually-hidden">Duration per workflow over the last 24 hours</caption>
        <thead>
          <tr>
            <th scope="col">Workflow</th>
            <th scope="col">Ended runs</th>
            <th scope="col">p50</th>
            <th scope="col">p95</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.workflow}>
              <td>
                <Link href={`${BASE}/executions?workflow=${encodeURIComponent(r.workflow)}`}>
                  {r.workflow}
                </Link>
              </td>
              <td>{r.count}</td>
              <td>{formatMs(r.p50_ms)}</td>
              <td>{formatMs(r.p95_ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/** The last 24 hours in pictures (`GET /stats/executions`): runs per hour, durations per workflow. */
export function OverviewPage({ client }: { client: WeftClient }) {
  const stats = useLoad((signal) => client.executionStats({ signal }), [client]);
  return (
    <Page title="Overview">
      <button type="button" class="secondary" onClick={stats.reload}>
        Refresh
      </button>
      {stats.error !== undefined ? <ErrorBox error={stats.error} /> : null}
      {stats.loading && !stats.data ? <Loading /> : null}
      {stats.data ? (
        <>
          <h2>Executions per hour</h2>
          <HourChart stats={stats.data} />
          <h2>Duration per workflow</h2>
          <p class="muted">
            <span class="swatch p50" aria-hidden="true" /> p50 (median) ·{' '}
            <span class="swatch p95" aria-hidden="true" /> p95, of the runs that ended
          </p>
          <Durations stats={stats.data} />
        </>
      ) : null}
    </Page>
  );
}
