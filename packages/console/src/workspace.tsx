import { useEffect, useState } from 'preact/hooks';
import type { WhoAmI } from '@weft/core';
import type { WeftClient } from '@weft/sdk/client';

/**
 * The signed-in workspace (the principal's owner) and who is signed in, in the header: what the
 * console lists is this workspace's, whichever credential signed in. Shows nothing until the
 * server answers, and nothing when it cannot (the pages then say why).
 */
export function Workspace({ client }: { client: WeftClient }) {
  const [me, setMe] = useState<WhoAmI>();
  useEffect(() => {
    const aborted = new AbortController();
    client.whoami(aborted.signal).then(setMe, () => setMe(undefined));
    return () => aborted.abort();
  }, [client]);
  if (!me) return null;
  return (
    <span class="workspace" title={`Signed in as ${me.name} (${me.subject})`}>
      Workspace <strong data-testid="workspace">{me.owner}</strong>
      <span class="who"> · {me.name}</span>
    </span>
  );
}
