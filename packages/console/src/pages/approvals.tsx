import { useState } from 'preact/hooks';
import type { ExecutionRecord, WeftClient } from '@weft/sdk/client';
import { Decision } from '../decision.js';
import { formatTime } from '../format.js';
import { RunInputs } from '../inputs.js';
import { toolCallOf, ToolCallSummary } from '../tool-call.js';
import { useLoad } from '../load.js';
import { BASE, Link } from '../router.js';
import { ErrorBox, Loading, Page, Status } from '../ui.js';

/** What the signed-in key may decide (`GET /approvals`), each with Approve and Reject. */
export function ApprovalsPage({ client }: { client: WeftClient }) {
  const [cursor, setCursor] = useState<string>();
  const [decided, setDecided] = useState<ExecutionRecord[]>([]);
  const page = useLoad(
    (signal) => client.listApprovals({ limit: 20, ...(cursor ? { cursor } : {}), signal }),
    [client, cursor],
  );
  const done = new Set(decided.map((record) => record.execution_id));
  const waiting = page.data?.executions.filter((record) => !done.has(record.execution_id)) ?? [];
  return (
    <Page title="Approvals">
      {decided.length > 0 ? (
        <ul class="notices" role="status">
          {decided.map((record) => (
            <li key={record.execution_id}>
              {record.workflow}: {record.status === 'canceled' ? 'rejected' : 'approved'} (now{' '}
              <Status status={record.status} />
              ).{' '}
              <Link href={`${BASE}/executions/${encodeURIComponent(record.execution_id)}`}>
                Open the run of {record.workflow}
              </Link>
            </li>
          ))}
        </ul>
      ) : null}
      {page.error !== undefined ? <ErrorBox error={page.error} /> : null}
      {page.loading && !page.data ? <Loading /> : null}
      {page.data && waiting.length === 0 ? (
        <p class="muted">Nothing waits for your approval.</p>
      ) : null}
      <ul class="cards">
        {waiting.map((record) => (
          <li key={record.execution_id} class="card">
            <h2>
              <Link href={`${BASE}/executions/${encodeURIComponent(record.execution_id)}`}>
                {record.workflow}
              </Link>
            </h2>
            <p>
              Started by <code>{requesterOf(record)}</code>, waiting since{' '}
              {formatTime(record.waiting_for?.since)}
              {record.waiting_for?.expires_at
                ? `, until ${formatTime(record.waiting_for.expires_at)}`
                : ''}
              .
            </p>
            {toolCallOf(record) ? (
              <ToolCallSummary call={toolCallOf(record)!} showArguments={false} />
            ) : null}
            <h3>Inputs</h3>
            <RunInputs record={record} />
            <Decision
              client={client}
              record={record}
              onDecided={(after) => setDecided((list) => [...list, after])}
            />
          </li>
        ))}
      </ul>
      {page.data?.next_cursor ? (
        <button type="button" onClick={() => setCursor(page.data!.next_cursor!)}>
          Next page
        </button>
      ) : null}
    </Page>
  );
}

/** Who started a waiting run (`waiting_for.requested_by`). */
function requesterOf(record: ExecutionRecord): string {
  const waiting = record.waiting_for as Record<string, unknown> | undefined;
  const by = waiting?.['requested_by'];
  if (typeof by === 'string') return by;
  const name = (by as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name : 'unknown';
}
