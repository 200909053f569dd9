import { useEffect, useState } from 'preact/hooks';
import { completeSignIn, type ProviderSignIn } from '../oidc.js';
import { BASE, Link } from '../router.js';
import { ErrorBox, Loading, Page } from '../ui.js';

/**
 * Where the identity provider sends the browser back (`/console/callback?code&state`): the code
 * is exchanged for tokens, and the callback address (with its code) is replaced in the history.
 * A failure is shown and signs nobody in.
 */
export function CallbackPage({ onToken }: { onToken(signIn: ProviderSignIn): void }) {
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    const url = new URL(location.href);
    // The code and state never stay in the address bar nor in the history.
    history.replaceState(null, '', `${BASE}/callback`);
    completeSignIn(url).then(onToken, setError);
  }, []);
  return (
    <Page title="Signing in">
      {error === undefined ? <Loading /> : <ErrorBox error={error} />}
      {error !== undefined ? (
        <p>
          <Link href={`${BASE}/`}>Back to the sign-in page</Link>
        </p>
      ) : null}
    </Page>
  );
}
