import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApprovalsPage } from './pages/approvals.js';
import { BudgetsPage } from './pages/budgets.js';
import { DeploymentPage, DeploymentsPage } from './pages/deployments.js';
import { ExecutionPage } from './pages/execution.js';
import { ExecutionsPage } from './pages/executions.js';
import { OverviewPage } from './pages/overview.js';
import { useWhoAmI } from './me.js';
import { PluginPage } from './pages/plugin.js';
import { PluginsPage } from './pages/plugins.js';
import { RoutesPage } from './pages/routes.js';
import { CallbackPage } from './pages/callback.js';
import { SignInPage } from './pages/sign-in.js';
import { BASE, Link, navigate, segmentsOf, useLocation } from './router.js';
import { TokenRefresher } from './refresh.js';
import {
  clientFor,
  forgetKey,
  storedKey,
  storedRefresh,
  storeKey,
  storeRefresh,
  storeToken,
} from './session.js';
import type { WeftClient } from '@weft/sdk/client';
import { Page } from './ui.js';
import { Workspace } from './workspace.js';

const SECTIONS = [
  ['overview', 'Overview'],
  ['executions', 'Executions'],
  ['approvals', 'Approvals'],
  ['deployments', 'Deployments'],
  ['budgets', 'Budgets'],
  ['plugins', 'Plugins'],
  ['routes', 'Routes'],
] as const;

/** Sections only an admin key sees (the server refuses their data to others). */
const ADMIN_ONLY: ReadonlySet<string> = new Set(['routes']);

/** The console: sign-in, then the navigation and the page the URL names. */
export function App() {
  const [key, setKey] = useState(storedKey);
  /** Why the tab was signed out without the user asking (a sign-in that could not be renewed). */
  const [notice, setNotice] = useState<string>();
  const url = useLocation();
  const refresher = useMemo(
    () =>
      key && storedRefresh()
        ? new TokenRefresher((message) => {
            forgetKey();
            setNotice(message);
            setKey(null);
          })
        : undefined,
    [key],
  );
  useEffect(() => {
    refresher?.start();
    return () => refresher?.stop();
  }, [refresher]);
  const client = useMemo(() => (key ? clientFor(key, refresher) : undefined), [key, refresher]);
  const me = useWhoAmI(client);
  const segments = segmentsOf(url.pathname);
  useEffect(() => {
    if (segments.length === 0 || (client && segments[0] === 'callback')) {
      navigate(`${BASE}/executions`, true);
    }
  }, [url.pathname, client]);
  useEffect(() => {
    document.querySelector<HTMLElement>('main h1')?.focus();
    const title = document.querySelector('main h1')?.textContent;
    document.title = title ? `${title} · weft` : 'weft console';
  }, [url.pathname, key]);
  if (!client && segments[0] === 'callback') {
    return (
      <main>
        <CallbackPage
          onToken={(signIn) => {
            storeToken(signIn.accessToken);
            storeRefresh(
              signIn.refreshToken === undefined
                ? undefined
                : {
                    refresh_token: signIn.refreshToken,
                    token_endpoint: signIn.tokenEndpoint,
                    client_id: signIn.clientId,
                    ...(signIn.expiresAt !== undefined ? { expires_at: signIn.expiresAt } : {}),
                  },
            );
            setNotice(undefined);
            setKey(signIn.accessToken);
          }}
        />
      </main>
    );
  }
  if (!client) {
    return (
      <main>
        <SignInPage
          notice={notice}
          onSignIn={(newKey) => {
            storeKey(newKey);
            setNotice(undefined);
            setKey(newKey);
          }}
        />
      </main>
    );
  }
  const signOut = () => {
    forgetKey();
    setNotice(undefined);
    setKey(null);
  };
  return (
    <>
      <header>
        <span class="brand">weft</span>
        <nav aria-label="Sections">
          {SECTIONS.filter(([path]) => me?.admin === true || !ADMIN_ONLY.has(path)).map(
            ([path, label]) => (
              <Link
                key={path}
                href={`${BASE}/${path}`}
                aria-current={segments[0] === path ? 'page' : undefined}
              >
                {label}
              </Link>
            ),
          )}
        </nav>
        <Workspace client={client} />
        <button type="button" class="secondary" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main>{pageOf(segments, client, url, me?.admin)}</main>
    </>
  );
}

function pageOf(segments: string[], client: WeftClient, url: URL, admin: boolean | undefined) {
  const [section, id] = segments;
  switch (section) {
    case undefined:
    case 'executions':
      return id ? (
        <ExecutionPage client={client} id={id} />
      ) : (
        <ExecutionsPage client={client} url={url} />
      );
    case 'approvals':
      return <ApprovalsPage client={client} />;
    case 'deployments':
      return id ? (
        <DeploymentPage client={client} name={id} />
      ) : (
        <DeploymentsPage client={client} />
      );
    case 'plugins':
      return id ? (
        <PluginPage client={client} slug={id} />
      ) : (
        <PluginsPage client={client} url={url} />
      );
    case 'routes':
      return <RoutesPage client={client} admin={admin} />;
    case 'budgets':
      return <BudgetsPage client={client} />;
    case 'overview':
      return <OverviewPage client={client} />;
    default:
      return (
        <Page title="Not found">
          <p>
            No such page. <Link href={`${BASE}/executions`}>Go to the executions</Link>.
          </p>
        </Page>
      );
  }
}
