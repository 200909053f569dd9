import { formatMs, formatTime } from '../format.js';
import { BASE, Link } from '../router.js';
import type { StepView } from '../timeline.js';
import { ErrorBox, Json, Status } from '../ui.js';
import type { NodeState } from './model.js';

/** What a clicked graph node shows: the step's input, output, error and attempts. */
export function StepPanel({
  path,
  state,
  calls,
  now,
  onClose,
}: {
  path: string;
  state: NodeState | undefined;
  /** The workflow the step calls (a subworkflow step). */
  calls: string | undefined;
  now: number;
  onClose(): void;
}) {
  const views = state?.views ?? [];
  return (
    <section class="step-panel" aria-labelledby="step-panel-heading">
      <div class="step-head">
        <h3 id="step-panel-heading">Step {path}</h3>
        <button type="button" class="secondary" onClick={onClose}>
          Close
        </button>
      </div>
      {calls !== undefined ? (
        <p>
          Calls the workflow{' '}
          <Link href={`${BASE}/deployments/${encodeURIComponent(calls)}`}>{calls}</Link> (its steps
          run in this execution, listed below as <code>{path}/…</code>).
        </p>
      ) : null}
      {views.length === 0 ? <p class="muted">This step has not run (yet).</p> : null}
      {views.map((view) => (
        <StepFacts key={view.name} view={view} now={now} />
      ))}
    </section>
  );
}

function StepFacts({ view, now }: { view: StepView; now: number }) {
  const elapsed =
    view.durationMs ??
    (view.status === 'running' && view.startedAt ? now - Date.parse(view.startedAt) : undefined);
  return (
    <div data-testid="step-panel">
      <p>
        <Status status={view.status} /> started {formatTime(view.startedAt)}
        {elapsed !== undefined ? `, ${formatMs(elapsed)}` : ''}
        {view.attempts !== undefined && view.attempts > 0
          ? `, ${view.attempts} attempt${view.attempts === 1 ? '' : 's'}`
          : ''}
      </p>
      {view.attemptLog && view.attemptLog.length > 1 ? (
        <ol aria-label={`Attempts of ${view.name}`}>
          {view.attemptLog.map((span, i) => (
            <li key={span.started_at}>
              {span.item !== undefined ? `item ${span.item}, ` : ''}attempt {i + 1}:{' '}
              {formatTime(span.started_at)},{' '}
              {formatMs(Date.parse(span.finished_at) - Date.parse(span.started_at))}
              {span.error_code ? ` (${span.error_code})` : ''}
            </li>
          ))}
        </ol>
      ) : null}
      {view.input !== undefined ? (
        <>
          <h4>Input</h4>
          <Json value={view.input} label={`Step input of ${view.name}`} />
        </>
      ) : null}
      {view.output !== undefined && view.output !== null ? (
        <>
          <h4>Output</h4>
          <Json value={view.output} label={`Step output of ${view.name}`} />
        </>
      ) : null}
      {view.error !== undefined ? (
        <>
          <h4>Error</h4>
          <ErrorBox error={view.error} />
        </>
      ) : null}
    </div>
  );
}
