import { useState } from 'preact/hooks';
import type { ExecutionRecord, WeftClient } from '@weft/sdk/client';
import { ErrorBox } from './ui.js';

/** Approve and Reject of a waiting execution, with an optional comment. */
export function Decision({
  client,
  record,
  onDecided,
}: {
  client: WeftClient;
  record: ExecutionRecord;
  onDecided(record: ExecutionRecord): void;
}) {
  const [comment, setComment] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const id = `comment-${record.execution_id}`;
  const decide = async (verdict: 'approve' | 'reject') => {
    setBusy(true);
    setError(undefined);
    const options = comment.trim() ? { comment: comment.trim() } : {};
    try {
      onDecided(
        verdict === 'approve'
          ? await client.approveExecution(record.execution_id, options)
          : await client.rejectExecution(record.execution_id, options),
      );
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="decision">
      <label for={id}>Comment (optional)</label>
      <textarea
        id={id}
        maxLength={2000}
        rows={2}
        value={comment}
        onInput={(event) => setComment(event.currentTarget.value)}
      />
      <div class="actions">
        <button type="button" disabled={busy} onClick={() => void decide('approve')}>
          Approve
        </button>
        <button type="button" class="danger" disabled={busy} onClick={() => void decide('reject')}>
          Reject
        </button>
      </div>
      {error !== undefined ? <ErrorBox error={error} /> : null}
    </div>
  );
}
