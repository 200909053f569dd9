import { formatMs } from '../format.js';
import type { StepView } from '../timeline.js';
import { ganttOf, ticksOf, type Wait } from './gantt.js';

const LABEL = 180;
const PLOT = 640;
const ROW = 22;
const AXIS = 24;

/**
 * The run as a timeline (Gantt): one bar per step, or per attempt of a retried step, and one per
 * wait (for an approval), on one time axis from the first start; bars still running end at `now`.
 * One image to assistive technology; each bar is a `rect` with `data-step`.
 */
export function RunTimeline({
  steps,
  waits,
  now,
}: {
  steps: readonly StepView[];
  waits: readonly Wait[];
  now: number;
}) {
  const gantt = ganttOf(steps, waits, now);
  if (gantt.bars.length === 0) return null;
  const span = gantt.to - gantt.from;
  const x = (t: number) => LABEL + ((t - gantt.from) / span) * PLOT;
  const height = AXIS + gantt.bars.length * ROW + 4;
  const width = LABEL + PLOT + 40;
  const summary = gantt.bars
    .map((bar) => `${bar.label} ${bar.status} ${formatMs(bar.end - bar.start)}`)
    .join(', ');
  return (
    <div class="graph-frame">
      <svg
        role="img"
        aria-label={`Run timeline: ${summary}`}
        class="run-timeline"
        width={width}
        height={height}
        viewBox={`0 0 ${width} ${height}`}
      >
        {ticksOf(span).map((tick) => (
          <g key={tick} class="gantt-tick">
            <line x1={x(gantt.from + tick)} x2={x(gantt.from + tick)} y1={AXIS - 6} y2={height} />
            <text x={x(gantt.from + tick)} y={AXIS - 10} text-anchor="middle">
              {tick === 0 ? '0' : `+${formatMs(tick)}`}
            </text>
          </g>
        ))}
        {gantt.bars.map((bar, row) => {
          const y = AXIS + row * ROW;
          const left = x(bar.start);
          const barWidth = Math.max(2, x(bar.end) - left);
          return (
            <g key={`${bar.step}-${bar.attempt ?? 0}-${row}`}>
              <text x={LABEL - 8} y={y + 15} text-anchor="end" class="gantt-label">
                {bar.label.length > 24 ? `${bar.label.slice(0, 23)}…` : bar.label}
              </text>
              <rect
                data-step={bar.step}
                data-kind={bar.kind}
                {...(bar.attempt !== undefined ? { 'data-attempt': bar.attempt } : {})}
                class={`gantt-bar bar-${bar.kind} node-${bar.status}`}
                x={left}
                y={y + 3}
                width={barWidth}
                height={ROW - 6}
                rx="3"
              >
                <title>
                  {bar.label}: {bar.status}, {formatMs(bar.end - bar.start)}
                </title>
              </rect>
              <text x={left + barWidth + 4} y={y + 15} class="gantt-duration">
                {formatMs(bar.end - bar.start)}
              </text>
            </g>
          );
        })}
      </svg>
    </div>
  );
}
