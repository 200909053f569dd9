import { useEffect, useMemo, useState } from 'preact/hooks';
import {
  isFinishedStatus,
  type ExecutionEvent,
  type ExecutionRecord,
  type WeftClient,
} from '@weft/sdk/client';
import { Decision } from '../decision.js';
import { formatDuration, formatMs, formatTime } from '../format.js';
import type { Wait } from '../graph/gantt.js';
import { layoutWorkflow, nodeStates } from '../graph/model.js';
import { RunTimeline } from '../graph/run-timeline.js';
import { StepPanel } from '../graph/step-panel.js';
import { WorkflowGraph } from '../graph/workflow-graph.js';
import { RunInputs } from '../inputs.js';
import { useLoad } from '../load.js';
import { BASE, Link } from '../router.js';
import { RunActions, useNow } from '../run-actions.js';
import { stepsFromEvents, stepsFromRecord, type StepView } from '../timeline.js';
import { toolCallOf, ToolCallSummary } from '../tool-call.js';
import { ErrorBox, Json, Loading, Page, Status } from '../ui.js';

type Live = 'connecting' | 'live' | 'ended' | 'lost';

/**
 * One run: its record, its steps as a timeline, its event log. The events stream over SSE from
 * the first one (replayed) while the run goes on; each event that changes the run reloads the
 * record, so the page follows the run without a reload.
 */
export function ExecutionPage({ client, id }: { client: WeftClient; id: string }) {
  const [record, setRecord] = useState<ExecutionRecord>();
  const [events, setEvents] = useState<ExecutionEvent[]>([]);
  const [error, setError] = useState<unknown>();
  const [live, setLive] = useState<Live>('connecting');
  const [selected, setSelected] = useState<string>();
  const definition = useLoad(
    (signal) => client.getExecutionDefinition(id, signal).then((answer) => answer.workflow),
    [client, id],
  );
  const me = useLoad((signal) => client.whoami(signal), [client]);
  const now = useNow(record !== undefined && !isFinishedStatus(record.status));
  /** The workflows its subworkflow steps call, by step path (laid out once per definition). */
  const calls = useMemo(() => {
    const nodes = definition.data ? layoutWorkflow(definition.data).nodes : [];
    return new Map(nodes.flatMap((n) => (n.calls !== undefined ? [[n.path, n.calls]] : [])));
  }, [definition.data]);
  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    let inFlight = false;
    let again = false;
    const refresh = async (): Promise<void> => {
      if (inFlight) {
        again = true;
        return;
      }
      inFlight = true;
      try {
        const fresh = await client.getExecution(id, signal);
        if (!signal.aborted) setRecord(fresh);
      } catch (failure) {
        if (!signal.aborted) setError(failure);
      } finally {
        inFlight = false;
      }
      if (again && !signal.aborted) {
        again = false;
        await refresh();
      }
    };
    setRecord(undefined);
    setEvents([]);
    setError(undefined);
    setLive('connecting');
    setSelected(undefined);
    void (async () => {
      await refresh();
      try {
        const stream = client.streamEvents(id, { signal });
        setLive('live');
        for await (const event of stream) {
          setEvents((list) => [...list, event]);
          if (event.type !== 'step.progress') void refresh();
        }
        if (!signal.aborted) {
          setLive('ended');
          await refresh();
        }
      } catch (failure) {
        if (!signal.aborted) {
          setLive('lost');
          setError(failure);
        }
      }
    })();
    return () => controller.abort();
  }, [client, id]);

  if (!record) {
    return (
      <Page title="Execution">
        {error !== undefined ? <ErrorBox error={error} /> : <Loading />}
      </Page>
    );
  }
  const finished = isFinishedStatus(record.status);
  const steps = events.length > 0 ? stepsFromEvents(events) : stepsFromRecord(record);
  const workflow = definition.data;
  return (
    <Page title={`Execution of ${record.workflow}`}>
      <dl class="facts">
        <dt>Status</dt>
        <dd data-testid="execution-status">
          <Status status={record.status} />
        </dd>
        <dt>Execution</dt>
        <dd>
          <code>{record.execution_id}</code>
        </dd>
        <dt>Workflow</dt>
        <dd>
          {record.workflow} {record.workflow_version}
        </dd>
        <dt>Trigger</dt>
        <dd>{record.trigger}</dd>
        <dt>Started</dt>
        <dd>{formatTime(record.started_at ?? record.created_at)}</dd>
        <dt>Duration</dt>
        <dd>{formatDuration(record.started_at, record.finished_at)}</dd>
        <dt>Updates</dt>
        <dd>
          <span role="status">{liveText(live, finished)}</span>
        </dd>
      </dl>
      <section aria-labelledby="inputs-heading">
        <h2 id="inputs-heading">Inputs</h2>
        <RunInputs record={record} />
      </section>
      <RunActions client={client} record={record} onChanged={setRecord} />
      {record.status === 'waiting' && record.waiting_for ? (
        <section aria-labelledby="waiting-heading">
          <h2 id="waiting-heading">
            Waiting for{' '}
            {record.waiting_for.kind === 'tool_call'
              ? 'a tool call approval'
              : record.waiting_for.kind}
          </h2>
          <p>
            Since {formatTime(record.waiting_for.since)}
            {record.waiting_for.expires_at
              ? `, until ${formatTime(record.waiting_for.expires_at)}`
              : ''}
            .
          </p>
          {toolCallOf(record) ? (
            <ToolCallSummary
              call={toolCallOf(record)!}
              showArguments={!me.data || !mayDecide(record.waiting_for, me.data)}
            />
          ) : null}
          {(record.waiting_for.kind === 'approval' || record.waiting_for.kind === 'tool_call') &&
          me.data ? (
            mayDecide(record.waiting_for, me.data) ? (
              <Decision client={client} record={record} onDecided={setRecord} />
            ) : (
              <p class="muted">
                An approver decides it (one of the roles{' '}
                {approversOf(record.waiting_for).join(', ') || 'of an admin key'}).
              </p>
            )
          ) : null}
        </section>
      ) : null}
      {record.error ? (
        <section aria-labelledby="error-heading">
          <h2 id="error-heading">Error</h2>
          <ErrorBox error={record.error} />
        </section>
      ) : null}
      {workflow ? (
        <section aria-labelledby="graph-heading">
          <h2 id="graph-heading">Graph</h2>
          <p class="muted">Click a step to see its input, output, error and attempts.</p>
          <div class="graph-and-panel">
            <WorkflowGraph
              definition={workflow}
              name={record.workflow}
              steps={steps}
              selected={selected}
              onSelect={setSelected}
            />
            {selected !== undefined ? (
              <StepPanel
                path={selected}
                state={nodeStates(steps).get(selected)}
                calls={calls.get(selected)}
                now={now}
                onClose={() => setSelected(undefined)}
              />
            ) : null}
          </div>
          {calls.size > 0 ? (
            <p>
              Calls:{' '}
              {[...new Set(calls.values())].map((name, i) => (
                <span key={name}>
                  {i > 0 ? ', ' : ''}
                  <Link href={`${BASE}/deployments/${encodeURIComponent(name)}`}>{name}</Link>
                </span>
              ))}
            </p>
          ) : null}
        </section>
      ) : null}
      <section aria-labelledby="gantt-heading">
        <h2 id="gantt-heading">Timeline</h2>
        <RunTimeline steps={steps} waits={waitsOf(record, workflow)} now={now} />
      </section>
      <section aria-labelledby="steps-heading">
        <h2 id="steps-heading">Steps</h2>
        {steps.length === 0 ? <p class="muted">No step has started yet.</p> : null}
        <ol class="timeline">
          {steps.map((step) => (
            <StepItem key={step.name} step={step} now={now} />
          ))}
        </ol>
      </section>
      {record.result ? (
        <section aria-labelledby="outputs-heading">
          <h2 id="outputs-heading">Outputs</h2>
          <Json value={record.result.outputs} label="Workflow outputs" />
        </section>
      ) : null}
      <section aria-labelledby="events-heading">
        <h2 id="events-heading">Event log</h2>
        <ol class="events" aria-live="polite">
          {events.map((event) => (
            <li key={event.id}>
              <time dateTime={event.timestamp}>{formatTime(event.timestamp)}</time>{' '}
              <code>{event.type}</code> {event.step_name}
            </li>
          ))}
        </ol>
      </section>
    </Page>
  );
}

function StepItem({ step, now }: { step: StepView; now: number }) {
  return (
    <li class={`step depth-${Math.min(step.depth, 4)}`} data-step={step.name}>
      <div class="step-head">
        <strong>{step.name}</strong> <Status status={step.status} />
        {step.attempts !== undefined && step.attempts > 0 ? (
          <span class="muted">
            {' '}
            · {step.attempts} attempt{step.attempts === 1 ? '' : 's'}
          </span>
        ) : null}
        {step.durationMs !== undefined ? (
          <span class="muted"> · {formatMs(step.durationMs)}</span>
        ) : null}
        {step.status === 'running' && step.startedAt ? (
          <span class="muted" data-testid="elapsed">
            {' '}
            · {formatMs(Math.max(0, now - Date.parse(step.startedAt)))}
          </span>
        ) : null}
        {step.status === 'running' && step.progress ? (
          <span class="progress" data-testid="progress">
            {' '}
            · {step.progress.percent !== undefined ? `${Math.round(step.progress.percent)}%` : ''}
            {step.progress.message ? ` ${step.progress.message}` : ''}
          </span>
        ) : null}
      </div>
      {step.error !== undefined ? (
        <details>
          <summary>Error of {step.name}</summary>
          <ErrorBox error={step.error} />
        </details>
      ) : null}
      {step.input !== undefined || (step.output !== undefined && step.output !== null) ? (
        <div class="step-io">
          {step.input !== undefined ? (
            <details>
              <summary>Input of {step.name}</summary>
              <Json value={step.input} label={`Input of ${step.name}`} />
            </details>
          ) : null}
          {step.output !== undefined && step.output !== null ? (
            <details>
              <summary>Output of {step.name}</summary>
              <Json value={step.output} label={`Output of ${step.name}`} />
            </details>
          ) : null}
        </div>
      ) : null}
    </li>
  );
}

/** The waits of a run: the one it is in, or the approval it waited for before it started. */
function waitsOf(record: ExecutionRecord, workflow: Record<string, unknown> | undefined): Wait[] {
  if (record.waiting_for)
    return [{ kind: record.waiting_for.kind, since: record.waiting_for.since }];
  const approval = (
    workflow?.['authorization'] as { approval?: { required?: boolean } } | undefined
  )?.approval;
  if (approval?.required && record.started_at && record.started_at > record.created_at) {
    return [{ kind: 'approval', since: record.created_at, until: record.started_at }];
  }
  return [];
}

/** The approver roles a run waiting for approval names. */
function approversOf(waiting: Record<string, unknown>): string[] {
  const roles = waiting['approvers'];
  return Array.isArray(roles) ? roles.filter((r): r is string => typeof r === 'string') : [];
}

/** Whether the caller holds an approver role (no roles named: an admin key), as the server checks. */
function mayDecide(waiting: Record<string, unknown>, me: { admin: boolean; roles: string[] }) {
  const roles = approversOf(waiting);
  return roles.length === 0 ? me.admin : roles.some((role) => me.roles.includes(role));
}

function liveText(live: Live, finished: boolean): string {
  if (live === 'connecting') return 'connecting…';
  if (live === 'lost') return 'lost the event stream (reload to retry)';
  if (live === 'ended' || finished) return 'ended';
  return 'live';
}
