import type { WeftClient } from '@weft/sdk/client';
import { formatTime } from '../format.js';
import { useLoad } from '../load.js';
import { ErrorBox, Loading, Page } from '../ui.js';

/** One budget as `GET /budgets` answers it. */
interface BudgetStatus {
  scope: 'workflow' | 'workspace';
  owner: string;
  workflow: string | null;
  period: string;
  period_end: string;
  max_cost: number | null;
  max_tokens: number | null;
  spent_cost_usd: number;
  spent_tokens: number;
  reserved_cost_usd: number;
  reserved_tokens: number;
}

/**
 * Budgets across runs of the workspace (`GET /budgets`): each budget's limits, with a bar of
 * what the current period spent and holds reserved, and when the period ends.
 */
export function BudgetsPage({ client }: { client: WeftClient }) {
  const budgets = useLoad(
    async (signal) =>
      (await client.api.call('GET', '/budgets', { signal })).json as {
        owner: string;
        budgets: BudgetStatus[];
      },
    [client],
  );
  return (
    <Page title="Budgets">
      <button type="button" class="secondary" onClick={budgets.reload}>
        Refresh
      </button>
      {budgets.error !== undefined ? <ErrorBox error={budgets.error} /> : null}
      {budgets.loading && !budgets.data ? <Loading /> : null}
      {budgets.data && budgets.data.budgets.length === 0 ? (
        <p class="muted">
          No budgets: a workflow declares its own (<code>budgets:</code>), an admin sets the
          workspace's.
        </p>
      ) : null}
      {budgets.data && budgets.data.budgets.length > 0 ? (
        <table class="budgets">
          <thead>
            <tr>
              <th scope="col">Budget</th>
              <th scope="col">Period</th>
              <th scope="col">Cost</th>
              <th scope="col">Tokens</th>
              <th scope="col">Starts over</th>
            </tr>
          </thead>
          <tbody>
            {budgets.data.budgets.map((b) => (
              <tr key={`${b.scope}/${b.workflow ?? ''}`}>
                <th scope="row">
                  {b.scope === 'workspace' ? `Workspace ${b.owner}` : `Workflow ${b.workflow}`}
                </th>
                <td>{b.period}</td>
                <td>
                  {b.max_cost === null ? (
                    '—'
                  ) : (
                    <Gauge
                      spent={b.spent_cost_usd}
                      reserved={b.reserved_cost_usd}
                      limit={b.max_cost}
                      format={(n) => `$${n.toFixed(2)}`}
                    />
                  )}
                </td>
                <td>
                  {b.max_tokens === null ? (
                    '—'
                  ) : (
                    <Gauge
                      spent={b.spent_tokens}
                      reserved={b.reserved_tokens}
                      limit={b.max_tokens}
                      format={(n) => n.toLocaleString('en')}
                    />
                  )}
                </td>
                <td>{formatTime(b.period_end)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </Page>
  );
}

/** A bar of spent and reserved against the limit, with the numbers in words beside it. */
function Gauge(props: {
  spent: number;
  reserved: number;
  limit: number;
  format: (n: number) => string;
}) {
  const { spent, reserved, limit, format } = props;
  const share = (n: number) => `${Math.min(100, (n / limit) * 100).toFixed(1)}%`;
  const text = `${format(spent)} spent, ${format(reserved)} reserved of ${format(limit)}`;
  return (
    <div class="gauge">
      <div class="gauge-track" role="img" aria-label={text}>
        <span class="gauge-spent" style={{ width: share(spent) }} />
        <span class="gauge-reserved" style={{ width: share(reserved) }} />
      </div>
      <span class="muted">{text}</span>
    </div>
  );
}
