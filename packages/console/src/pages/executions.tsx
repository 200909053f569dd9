import { useEffect, useRef, useState } from 'preact/hooks';
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
const TRIGGERS = ['api', 'manual', 'webhook', 'schedule', 'event'];

/** The filters of the list, as the URL keeps them (so a link shares them and a reload keeps them). */
const FILTERS = ['status', 'workflow', 'trigger', 'from', 'to'] as const;
type Filters = Record<(typeof FILTERS)[number], string>;

/** The filters of `url`; `from` and `to` as `datetime-local` values (the reader's time). */
function filtersOf(url: URL): Filters {
  return Object.fromEntries(
    FILTERS.map((name) => [name, url.searchParams.get(name) ?? '']),
  ) as Filters;
}

/** A `datetime-local` value (the reader's time zone) as an RFC 3339 instant; '' when empty or bad. */
function instantOf(local: string): string {
  if (!local) return '';
  const ms = new Date(local).getTime();
  return Number.isNaN(ms) ? '' : new Date(ms).toISOString();
}

/**
 * Executions, newest first, filtered by status, workflow, trigger and creation time (all in the
 * URL), paged by cursor; the cursors of the pages before are kept in the URL too (`back`).
 */
export function ExecutionsPage({ client, url }: { client: WeftClient; url: URL }) {
  const filters = filtersOf(url);
  const cursor = url.searchParams.get('cursor') ?? '';
  const back = url.searchParams.getAll('back');
  const [draft, setDraft] = useState(filters);
  // The address this page last went to: its own changes keep what was typed since (the form is
  // already what they asked for); a change from elsewhere (back, a link) resets the form.
  const went = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (went.current !== url.search) setDraft(filtersOf(url));
  }, [url.search]);
  const page = useLoad(
    (signal) =>
      client.listExecutions({
        ...(filters.status ? { status: filters.status as ExecutionStatus } : {}),
        ...(filters.workflow ? { workflow: filters.workflow } : {}),
        ...(filters.trigger ? { trigger: filters.trigger } : {}),
        ...(instantOf(filters.from) ? { from: instantOf(filters.from) } : {}),
        ...(instantOf(filters.to) ? { to: instantOf(filters.to) } : {}),
        ...(cursor ? { cursor } : {}),
        limit: 20,
        signal,
      }),
    [client, url.search],
  );
  const go = (next: Filters, paging: { cursor?: string; back?: string[] } = {}) => {
    const query = new URLSearchParams();
    for (const name of FILTERS) if (next[name].trim()) query.set(name, next[name].trim());
    if (paging.cursor) query.set('cursor', paging.cursor);
    for (const previous of paging.back ?? []) query.append('back', previous);
    const text = query.toString();
    went.current = text ? `?${text}` : '';
    setDraft(next);
    navigate(`${BASE}/executions${text ? `?${text}` : ''}`);
  };
  const set = (name: keyof Filters) => (event: { currentTarget: { value: string } }) =>
    setDraft((old) => ({ ...old, [name]: event.currentTarget.value }));
  return (
    <Page title="Executions">
      <form
        class="filters"
        aria-label="Filter executions"
        onSubmit={(event) => {
          event.preventDefault();
          go(draft);
        }}
      >
        <Choice
          label="Status"
          value={draft.status}
          values={STATUSES}
          onChange={(status) => go({ ...draft, status })}
        />
        <label>
          Workflow
          <input type="text" value={draft.workflow} onInput={set('workflow')} />
        </label>
        <Choice
          label="Trigger"
          value={draft.trigger}
          values={TRIGGERS}
          onChange={(trigger) => go({ ...draft, trigger })}
        />
        <label>
          Created from
          <input type="datetime-local" step={1} value={draft.from} onInput={set('from')} />
        </label>
        <label>
          Created before
          <input type="datetime-local" step={1} value={draft.to} onInput={set('to')} />
        </label>
        <button type="submit">Filter</button>
        <button
          type="button"
          class="secondary"
          onClick={() => go({ status: '', workflow: '', trigger: '', from: '', to: '' })}
        >
          Clear
        </button>
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
                <th scope="col">Execution</th>
                <th scope="col">Workflow</th>
                <th scope="col">Status</th>
                <th scope="col">Trigger</th>
                <th scope="col">Started</th>
                <th scope="col">Duration</th>
              </tr>
            </thead>
            <tbody>
              {page.data.executions.map((record) => (
                <tr key={record.execution_id} data-execution={record.execution_id}>
                  <td>
                    <Link
                      href={`${BASE}/executions/${encodeURIComponent(record.execution_id)}`}
                      title={record.execution_id}
                    >
                      <code>{record.execution_id.slice(0, 12)}</code>
                    </Link>
                  </td>
                  <td>
                    <Link href={`${BASE}/executions/${encodeURIComponent(record.execution_id)}`}>
                      {record.workflow}
                    </Link>
                  </td>
                  <td>
                    <Status status={record.status} />
                  </td>
                  <td>{record.trigger}</td>
                  <td>
                    <time dateTime={record.started_at ?? record.created_at}>
                      {formatTime(record.started_at ?? record.created_at)}
                    </time>
                  </td>
                  <td>{formatDuration(record.started_at, record.finished_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {page.data.executions.length === 0 ? <p class="muted">No executions.</p> : null}
          <nav class="pager" aria-label="Pages">
            {cursor ? (
              <button
                type="button"
                class="secondary"
                onClick={() => go(filters, { cursor: back.at(-1) ?? '', back: back.slice(0, -1) })}
              >
                Previous page
              </button>
            ) : null}
            {page.data.next_cursor ? (
              <button
                type="button"
                onClick={() =>
                  go(filters, { cursor: page.data!.next_cursor!, back: [...back, cursor] })
                }
              >
                Next page
              </button>
            ) : null}
          </nav>
        </>
      ) : null}
    </Page>
  );
}

/** A filter chosen from a list, or `any` (the empty value). */
function Choice(props: {
  label: string;
  value: string;
  values: readonly string[];
  onChange: (value: string) => void;
}) {
  return (
    <label>
      {props.label}
      <select value={props.value} onChange={(event) => props.onChange(event.currentTarget.value)}>
        <option value="">any</option>
        {props.values.map((value) => (
          <option key={value} value={value}>
            {value}
          </option>
        ))}
      </select>
    </label>
  );
}
