import type { WeftClient } from '@weft/sdk/client';
import { formatTime } from '../format.js';
import { useLoad } from '../load.js';
import { ErrorBox, Loading, Page, Status } from '../ui.js';

/**
 * The router's table (`GET /routes`) for an admin key: instances, health, last error. Another
 * key is told it may not see it (the table names every workspace's connector instances); the
 * page asks nothing of the server then. `admin` is undefined until the server said who signed in.
 */
export function RoutesPage({ client, admin }: { client: WeftClient; admin: boolean | undefined }) {
  if (admin === undefined) {
    return (
      <Page title="Routes">
        <Loading />
      </Page>
    );
  }
  if (!admin) {
    return (
      <Page title="Routes">
        <ErrorBox
          error={{
            code: 'FORBIDDEN',
            message: 'the routing table is for admin keys; sign in with an admin key to see it',
          }}
        />
      </Page>
    );
  }
  return <RoutesTable client={client} />;
}

function RoutesTable({ client }: { client: WeftClient }) {
  const routes = useLoad((signal) => client.listRoutes(signal), [client]);
  return (
    <Page title="Routes">
      <button type="button" class="secondary" onClick={routes.reload}>
        Refresh
      </button>
      {routes.error !== undefined ? <ErrorBox error={routes.error} /> : null}
      {routes.loading && !routes.data ? <Loading /> : null}
      {routes.data && routes.data.instances.length === 0 ? (
        <p class="muted">No connector instance is registered.</p>
      ) : null}
      {routes.data && routes.data.instances.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Plugin</th>
              <th scope="col">Instance</th>
              <th scope="col">Health</th>
              <th scope="col">Last check</th>
              <th scope="col">Last error</th>
              <th scope="col">In flight</th>
            </tr>
          </thead>
          <tbody>
            {routes.data.instances.map((route) => (
              <tr key={`${route.plugin_slug}/${route.instance_id}`}>
                <td>
                  {route.plugin_slug} {route.version}
                </td>
                <td>
                  <code>{route.instance_id}</code>
                  <br />
                  <code class="muted">{route.url}</code>
                </td>
                <td>
                  <Status status={route.health} />
                </td>
                <td>{formatTime(route.last_check_at)}</td>
                <td>{route.last_error ?? '—'}</td>
                <td>{route.in_flight}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </Page>
  );
}
