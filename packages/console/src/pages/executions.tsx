import { useState } from 'preact/hooks';
import type { ExecutionStatus, WeftClient } from '@weft/sdk/client';
import { formatDuration, formatTime } from '../format.js';
import { useLoad } from '../load.js';
import { BASE, Link, navigate } from '../router.js';
import { ErrorBox, Loading, Page, Status } from '../ui.js';

const STATUSES: ExecutionStatus[] = [
  'pending',
  'running',
  'waiting',
  'completed',
  'failed',
  'canceled',
];

/** Executions, newest first, filtered by status and workflow (in the URL), paged by cursor. */
export function ExecutionsPage({ client, url }: { client: WeftClient; url: URL }) {
  const status = url.searchParams.get('status') ?? '';
  const workflow = url.searchParams.get('workflow') ?? '';
  const cursor = url.searchParams.get('cursor') ?? '';
  const [workflowDraft, setWorkflowDraft] = useState(workflow);
  const page = useLoad(
    (signal) =>
      client.listExecutions({
        ...(status ? { status: status as ExecutionStatus } : {}),
        ...(workflow ? { workflow } : {}),
        ...(cursor ? { cursor } : {}),
        limit: 20,
        signal,
      }),
    [client, status, workflow, cursor],
  );
  const go = (params: Record<string, string>) => {
    const query = new URLSearchParams(
      Object.entries(params).filter(([, value]) => value !== ''),
    ).toString();
    navigate(`${BASE}/executions${query ? `?${query}` : ''}`);
  };
  return (
    <Page title="Executions">
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          go({ status, workflow: workflowDraft.trim() });
        }}
      >
        <label>
          Status
          <select
            value={status}
            onChange={(event) => go({ status: event.currentTarget.value, workflow })}
          >
            <option value="">any</option>
            {STATUSES.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </label>
        <label>
          Workflow
          <input
            type="text"
            value={workflowDraft}
            onInput={(event) => setWorkflowDraft(event.currentTarget.value)}
          />
        </label>
        <button type="submit">Filter</button>
        <button type="button" class="secondary" onClick={page.reload}>
          Refresh
        </button>
      </form>
      {page.error !== undefined ? <ErrorBox error={page.error} /> : null}
      {page.loading && !page.data ? <Loading /> : null}
      {page.data ? (
        <>
          <table>
            <caption class="visually-hidden">Executions, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Workflow</th>
                <th scope="col">Status</th>
                <th scope="col">Started</th>
                <th scope="col">Duration</th>
              </tr>
            </thead>
            <tbody>
              {page.data.executions.map((record) => (
                <tr key={record.execution_id}>
                  <td>
                    <Link href={`${BASE}/executions/${encodeURIComponent(record.execution_id)}`}>
                      {record.workflow}
                    </Link>
                  </td>
                  <td>
                    <Status status={record.status} />
                  </td>
                  <td>{formatTime(record.started_at ?? record.created_at)}</td>
                  <td>{formatDuration(record.started_at, record.finished_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {page.data.executions.length === 0 ? <p class="muted">No executions.</p> : null}
          <div class="pager">
            {cursor ? (
              <button type="button" class="secondary" onClick={() => go({ status, workflow })}>
                First page
              </button>
            ) : null}
            {page.data.next_cursor ? (
              <button
                type="button"
                onClick={() => go({ status, workflow, cursor: page.data!.next_cursor! })}
              >
                Next page
              </button>
            ) : null}
          </div>
        </>
      ) : null}
    </Page>
  );
}
