import type { DeployedWorkflowSummary, WeftClient } from '@weft/sdk/client';
import { formatTime, jsonOf, maskSecretLines } from '../format.js';
import { WorkflowGraph } from '../graph/workflow-graph.js';
import { useLoad } from '../load.js';
import { BASE, Link } from '../router.js';
import { ErrorBox, Json, Loading, Page } from '../ui.js';

/** The next fires of a workflow's schedules, soonest first, each with its schedule. */
function NextFires({ workflow }: { workflow: DeployedWorkflowSummary }) {
  const fires = workflow.next_fires ?? [];
  if (fires.length === 0) return <>—</>;
  return (
    <ul class="plain" aria-label={`Next schedule fires of ${workflow.name}`}>
      {fires.map((schedule) => (
        <li key={schedule.trigger}>
          <code>{schedule.cron}</code> ({schedule.timezone}):{' '}
          {schedule.at.length === 0
            ? 'no fire left'
            : schedule.at.map((at, i) => (
                <span key={at}>
                  {i > 0 ? ', ' : ''}
                  <time dateTime={at}>{formatZoned(at, schedule.timezone)}</time>
                </span>
              ))}
        </li>
      ))}
    </ul>
  );
}

/** `at` as the schedule's time zone reads it, with the zone's name: `27 Nov 2026, 09:00 CET`. */
export function formatZoned(at: string, timeZone: string): string {
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return at;
  try {
    return date.toLocaleString([], {
      timeZone,
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      timeZoneName: 'short',
    });
  } catch {
    return formatTime(at);
  }
}

/** The definition's text as deployed (JSON pretty-printed), secret-looking literals masked. */
function sourceOf(text: string): string {
  if (/^\s*[{[]/.test(text)) {
    try {
      return jsonOf(JSON.parse(text));
    } catch {
      // shown as written
    }
  }
  return maskSecretLines(text);
}

/** A trigger of a definition in words: its type and what it listens to. */
function TriggerFacts({ trigger }: { trigger: Record<string, unknown> }) {
  const auth = trigger['auth'] as { type?: string; secret_name?: string } | undefined;
  const parts: string[] = [];
  if (trigger['type'] === 'schedule') {
    parts.push(`${String(trigger['cron'])} (${String(trigger['timezone'] ?? 'UTC')})`);
  }
  if (trigger['type'] === 'webhook') {
    parts.push(`${String(trigger['method'] ?? 'POST')} /hooks${String(trigger['path'])}`);
  }
  if (trigger['type'] === 'event')
    parts.push(`${String(trigger['source'])} ${String(trigger['topic'] ?? '')}`);
  return (
    <li>
      <strong>{String(trigger['type'])}</strong>
      {parts.length ? ` ${parts.join(' ')}` : ''}
      {auth ? (
        <>
          {' '}
          · auth {auth.type}
          {auth.secret_name ? (
            <>
              {' '}
              with the secret named <code>{auth.secret_name}</code>
            </>
          ) : null}
        </>
      ) : null}
    </li>
  );
}

/** Deployed workflows (`GET /workflows`): versions, triggers, webhook URLs, next schedule fires. */
export function DeploymentsPage({ client }: { client: WeftClient }) {
  const list = useLoad((signal) => client.listDeployments(signal), [client]);
  return (
    <Page title="Deployments">
      {list.error !== undefined ? <ErrorBox error={list.error} /> : null}
      {list.loading && !list.data ? <Loading /> : null}
      {list.data && list.data.workflows.length === 0 ? (
        <p class="muted">No workflow is deployed.</p>
      ) : null}
      {list.data && list.data.workflows.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Workflow</th>
              <th scope="col">Version</th>
              <th scope="col">Triggers</th>
              <th scope="col">Webhooks</th>
              <th scope="col">Next fires</th>
              <th scope="col">Deployed</th>
            </tr>
          </thead>
          <tbody>
            {list.data.workflows.map((workflow) => (
              <tr key={workflow.name}>
                <td>
                  <Link href={`${BASE}/deployments/${encodeURIComponent(workflow.name)}`}>
                    {workflow.name}
                  </Link>
                </td>
                <td>
                  {workflow.version} (revision {workflow.revision})
                </td>
                <td>{workflow.triggers.join(', ') || '—'}</td>
                <td>
                  {workflow.webhooks.map((hook) => (
                    <code key={hook} class="block">
                      {hook}
                    </code>
                  ))}
                </td>
                <td>
                  <NextFires workflow={workflow} />
                </td>
                <td>{formatTime(workflow.deployed_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </Page>
  );
}

/** One deployed workflow: its revisions and definition. */
export function DeploymentPage({ client, name }: { client: WeftClient; name: string }) {
  const detail = useLoad((signal) => client.getDeployment(name, signal), [client, name]);
  const data = detail.data;
  return (
    <Page title={name}>
      {detail.error !== undefined ? <ErrorBox error={detail.error} /> : null}
      {!data && detail.error === undefined ? <Loading /> : null}
      {data ? (
        <>
          <p>
            <Link href={`${BASE}/executions?workflow=${encodeURIComponent(name)}`}>
              Executions of {name}
            </Link>
          </p>
          <dl class="facts">
            <dt>Version</dt>
            <dd>{data.version}</dd>
            <dt>Triggers</dt>
            <dd>
              {data.triggers.length === 0 ? (
                '—'
              ) : (
                <ul class="plain" aria-label={`Triggers of ${name}`}>
                  {(
                    (data.definition['triggers'] as Record<string, unknown>[] | undefined) ?? []
                  ).map((trigger, i) => (
                    <TriggerFacts key={i} trigger={trigger} />
                  ))}
                </ul>
              )}
            </dd>
            <dt>Webhooks</dt>
            <dd>{data.webhooks.join(', ') || '—'}</dd>
            <dt>Next fires</dt>
            <dd>
              <NextFires workflow={data} />
            </dd>
            <dt>Plugins</dt>
            <dd>
              {data.plugins.map((p) => `${p.slug}@${p.version ?? 'latest'}`).join(', ') || '—'}
            </dd>
            <dt>Source</dt>
            <dd>{data.source}</dd>
            <dt>Deployed by</dt>
            <dd>{data.deployed_by ?? '—'}</dd>
          </dl>
          <h2>Revisions</h2>
          <ol>
            {data.revisions.map((revision) => (
              <li key={revision.revision}>
                revision {revision.revision}: version {revision.version},{' '}
                {formatTime(revision.deployed_at)} from {revision.source}
              </li>
            ))}
          </ol>
          <h2>Graph</h2>
          <WorkflowGraph definition={data.definition} name={name} />
          <h2>Definition</h2>
          {data.source_text ? (
            <pre class="json source" tabIndex={0} aria-label="Workflow definition as deployed">
              {sourceOf(data.source_text)}
            </pre>
          ) : (
            <>
              <p class="muted">
                The text it was deployed from was not kept (an earlier revision): its definition as
                stored.
              </p>
              <Json value={data.definition} label="Workflow definition" />
            </>
          )}
        </>
      ) : null}
    </Page>
  );
}
