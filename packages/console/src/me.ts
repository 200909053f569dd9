import { useEffect, useState } from 'preact/hooks';
import type { WhoAmI } from '@weft/core';
import type { WeftClient } from '@weft/sdk/client';

/** The signed-in caller as the server sees it (`GET /auth/whoami`); undefined until it answers. */
export function useWhoAmI(client: WeftClient | undefined): WhoAmI | undefined {
  const [me, setMe] = useState<WhoAmI>();
  useEffect(() => {
    setMe(undefined);
    if (!client) return;
    const aborted = new AbortController();
    client.whoami(aborted.signal).then(setMe, () => setMe(undefined));
    return () => aborted.abort();
  }, [client]);
  return me;
}
