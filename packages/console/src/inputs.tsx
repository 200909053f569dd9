import { Fragment } from 'preact';
import type { ExecutionRecord } from '@weft/sdk/client';
import { maskSecrets } from './format.js';

/**
 * The inputs a run was started with, as whoever decides or reads it must see them: secret inputs
 * arrive masked from the server (and secret-looking keys are masked again here).
 */
export function RunInputs({ record }: { record: ExecutionRecord }) {
  const entries = Object.entries(maskSecrets(record.inputs ?? {}) as Record<string, unknown>);
  if (entries.length === 0) return <p class="muted">Started without inputs.</p>;
  return (
    <dl class="facts inputs" aria-label={`Inputs of ${record.workflow}`}>
      {entries.map(([name, value]) => (
        <Fragment key={name}>
          <dt>{name}</dt>
          <dd>
            <code>{typeof value === 'string' ? value : JSON.stringify(value)}</code>
          </dd>
        </Fragment>
      ))}
    </dl>
  );
}
