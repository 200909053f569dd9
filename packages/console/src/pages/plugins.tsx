import { useEffect, useState } from 'preact/hooks';
import type { WeftClient } from '@weft/sdk/client';
import { useLoad } from '../load.js';
import { BASE, Link, navigate } from '../router.js';
import { ErrorBox, Loading, Page } from '../ui.js';

/** The registry's search (`GET /plugins/search?q=`), results in the API's ranking. */
export function PluginsPage({ client, url }: { client: WeftClient; url: URL }) {
  const query = url.searchParams.get('q') ?? '';
  const [draft, setDraft] = useState(query);
  useEffect(() => setDraft(query), [query]);
  const results = useLoad(
    (signal) => client.searchPlugins({ ...(query ? { query } : {}), limit: 50, signal }),
    [client, query],
  );
  return (
    <Page title="Plugins">
      <form
        role="search"
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          const q = draft.trim();
          navigate(`${BASE}/plugins${q ? `?q=${encodeURIComponent(q)}` : ''}`);
        }}
      >
        <label for="plugin-search">Search plugins</label>
        <input
          id="plugin-search"
          type="search"
          value={draft}
          onInput={(event) => setDraft(event.currentTarget.value)}
        />
        <button type="submit">Search</button>
      </form>
      {results.error !== undefined ? <ErrorBox error={results.error} /> : null}
      {results.loading && !results.data ? <Loading /> : null}
      {results.data ? (
        <>
          <p class="muted" role="status">
            {results.data.total} plugin{results.data.total === 1 ? '' : 's'}
          </p>
          <ul class="cards">
            {results.data.results.map((plugin) => (
              <li key={plugin.slug} class="card">
                <h2>
                  <Link href={`${BASE}/plugins/${encodeURIComponent(plugin.slug)}`}>
                    {plugin.name}
                  </Link>{' '}
                  <span class="muted">{plugin.version}</span>
                </h2>
                <p>{plugin.description}</p>
                <p class="muted">
                  {plugin.slug} · by {plugin.author} · {plugin.downloads} downloads
                  {plugin.tags.length > 0 ? ` · ${plugin.tags.join(', ')}` : ''}
                </p>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </Page>
  );
}
