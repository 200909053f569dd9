import { useState } from 'preact/hooks';
import type { WeftClient } from '@weft/sdk/client';
import { formatTime } from '../format.js';
import { useLoad } from '../load.js';
import { ErrorBox, Json, Loading, Page } from '../ui.js';

/** One plugin version: versions, deprecation, actions with their schemas, checksum. */
export function PluginPage({ client, slug }: { client: WeftClient; slug: string }) {
  const [version, setVersion] = useState<string>();
  const plugin = useLoad(
    (signal) => client.getPlugin(slug, { ...(version ? { version } : {}), signal }),
    [client, slug, version],
  );
  const data = plugin.data;
  if (!data) {
    return (
      <Page title={slug}>
        {plugin.error !== undefined ? <ErrorBox error={plugin.error} /> : <Loading />}
      </Page>
    );
  }
  return (
    <Page title={data.name}>
      <p>{data.description}</p>
      {data.deprecation ? (
        <p class="warning" role="note">
          Version {data.version} is deprecated: {data.deprecation.reason}
          {data.deprecation.replacement_version
            ? ` Use ${data.deprecation.replacement_version}.`
            : ''}
        </p>
      ) : null}
      <dl class="facts">
        <dt>Slug</dt>
        <dd>
          <code>{data.slug}</code>
        </dd>
        <dt>
          <label for="plugin-version">Version</label>
        </dt>
        <dd>
          <select
            id="plugin-version"
            value={data.version}
            onChange={(event) => setVersion(event.currentTarget.value)}
          >
            {data.versions.map((v) => (
              <option key={v} value={v}>
                {v}
                {v === data.latest_version ? ' (latest)' : ''}
              </option>
            ))}
          </select>
        </dd>
        <dt>Status</dt>
        <dd>{data.status}</dd>
        <dt>Author</dt>
        <dd>{data.author}</dd>
        <dt>Owner</dt>
        <dd>{data.owner}</dd>
        <dt>License</dt>
        <dd>{data.license}</dd>
        <dt>Published</dt>
        <dd>{formatTime(data.published_at)}</dd>
        <dt>Downloads</dt>
        <dd>{data.downloads}</dd>
        <dt>Checksum</dt>
        <dd>
          <code class="checksum">{data.checksum}</code>
        </dd>
        <dt>Signature</dt>
        <dd>{data.signed ? `signed (${data.signature_key_id ?? 'key unknown'})` : 'unsigned'}</dd>
      </dl>
      <h2>Actions</h2>
      {data.actions.map((action) => (
        <section key={action.name} class="card" aria-label={`Action ${action.name}`}>
          <h3>
            <code>{action.name}</code>
          </h3>
          {action.description ? <p>{action.description}</p> : null}
          <details>
            <summary>Input schema of {action.name}</summary>
            <Json value={action.input_schema} />
          </details>
          <details>
            <summary>Output schema of {action.name}</summary>
            <Json value={action.output_schema} />
          </details>
        </section>
      ))}
    </Page>
  );
}
