import { useState } from 'preact/hooks';
import type { ExecutionRecord, WeftClient } from '@weft/sdk/client';
import { toolCallOf } from './tool-call.js';
import { ErrorBox } from './ui.js';

/**
 * Approve and Reject of a waiting execution, with an optional comment; for an agent's tool
 * call, its arguments too, which the approver may edit (sent only when changed).
 */
export function Decision({
  client,
  record,
  onDecided,
}: {
  client: WeftClient;
  record: ExecutionRecord;
  onDecided(record: ExecutionRecord): void;
}) {
  const call = toolCallOf(record);
  const shown = call ? JSON.stringify(call.arguments, null, 2) : '';
  const [comment, setComment] = useState('');
  const [args, setArgs] = useState(shown);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const id = `comment-${record.execution_id}`;
  const decide = async (verdict: 'approve' | 'reject') => {
    setBusy(true);
    setError(undefined);
    const options: { comment?: string; arguments?: Record<string, unknown> } = comment.trim()
      ? { comment: comment.trim() }
      : {};
    try {
      if (call && verdict === 'approve' && args.trim() !== shown.trim()) {
        const edited: unknown = JSON.parse(args);
        if (typeof edited !== 'object' || edited === null || Array.isArray(edited)) {
          throw new Error('the arguments must be a JSON object');
        }
        options.arguments = edited as Record<string, unknown>;
      }
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
      {call ? (
        <>
          <label for={`args-${record.execution_id}`}>
            Arguments of {call.tool} (edit to change)
          </label>
          <textarea
            id={`args-${record.execution_id}`}
            class="code"
            rows={Math.min(12, shown.split('\n').length + 1)}
            value={args}
            onInput={(event) => setArgs(event.currentTarget.value)}
          />
        </>
      ) : null}
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
