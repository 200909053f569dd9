import { useState } from 'preact/hooks';
import { useLoad } from '../load.js';
import { beginSignIn, loadAuthConfig } from '../oidc.js';
import { clientFor } from '../session.js';
import { ErrorBox, Page } from '../ui.js';

/**
 * Sign-in with an API key: checked against the server (one authenticated request) before it is
 * kept in session storage. `notice` says why the tab was signed out, when it was not asked to.
 */
export function SignInPage({
  onSignIn,
  notice,
}: {
  onSignIn(key: string): void;
  notice?: string | undefined;
}) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const config = useLoad((signal) => loadAuthConfig(signal), []);
  const oidc = config.data?.oidc ?? undefined;
  const signInWithProvider = () => {
    if (!oidc) return;
    setBusy(true);
    setError(undefined);
    beginSignIn(oidc).catch((failure: unknown) => {
      setError(failure);
      setBusy(false);
    });
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    const trimmed = key.trim();
    if (trimmed === '') return;
    setBusy(true);
    setError(undefined);
    try {
      await clientFor(trimmed).listExecutions({ limit: 1 });
      onSignIn(trimmed);
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };
  return (
    <Page title="Sign in to weft">
      {notice !== undefined ? (
        <div class="error" role="alert">
          <strong>Signed out</strong>: {notice}
        </div>
      ) : null}
      {oidc ? (
        <div class="sign-in provider">
          <button type="button" disabled={busy} onClick={signInWithProvider}>
            Sign in with {oidc.name}
          </button>
          <p class="muted">Or with an API key:</p>
        </div>
      ) : null}
      {config.error !== undefined ? <ErrorBox error={config.error} /> : null}
      <form class="sign-in" method="post" onSubmit={(event) => void submit(event)}>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autocomplete="current-password"
          required
          value={key}
          onInput={(event) => setKey(event.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        <p class="muted">
          The key stays in this tab's session storage and is sent only as a bearer token to this
          server. Create one with <code>weft auth create-key</code>.
        </p>
      </form>
      {error !== undefined ? <ErrorBox error={error} /> : null}
    </Page>
  );
}
