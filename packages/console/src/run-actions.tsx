import { useEffect, useState } from 'preact/hooks';
import { isFinishedStatus, type ExecutionRecord, type WeftClient } from '@weft/sdk/client';
import { BASE, navigate } from './router.js';
import { ErrorBox } from './ui.js';

/**
 * What can be done to a run from its page: Rerun an ended run, Retry a failed one from the step
 * it failed at (both open the new run), Cancel one that has not ended, after a confirmation.
 */
export function RunActions({
  client,
  record,
  onChanged,
}: {
  client: WeftClient;
  record: ExecutionRecord;
  onChanged(record: ExecutionRecord): void;
}) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const finished = isFinishedStatus(record.status);
  const act = async (run: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await run();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  const rerun = (from?: string) =>
    act(async () => {
      const started = await client.rerunExecution(record.execution_id, from ? { from } : {});
      navigate(`${BASE}/executions/${encodeURIComponent(started.execution_id)}`);
    });
  const cancel = () =>
    act(async () => {
      setConfirming(false);
      onChanged(await client.cancelExecution(record.execution_id));
    });
  return (
    <>
      <div class="actions">
        {finished ? (
          <button type="button" disabled={busy} onClick={() => void rerun()}>
            Rerun
          </button>
        ) : null}
        {record.status === 'failed' ? (
          <button type="button" disabled={busy} onClick={() => void rerun('failed')}>
            Retry from the failed step
          </button>
        ) : null}
        {!finished && !confirming ? (
          <button type="button" class="danger" disabled={busy} onClick={() => setConfirming(true)}>
            Cancel
          </button>
        ) : null}
      </div>
      {!finished && confirming ? (
        <div class="confirm" role="group" aria-labelledby="cancel-question">
          <p id="cancel-question">
            Cancel this run? Its steps in flight are stopped; it cannot be resumed.
          </p>
          <div class="actions">
            <button type="button" class="danger" disabled={busy} onClick={() => void cancel()}>
              Yes, cancel the run
            </button>
            <button type="button" class="secondary" onClick={() => setConfirming(false)}>
              Keep it running
            </button>
          </div>
        </div>
      ) : null}
      {error !== undefined ? <ErrorBox error={error} /> : null}
    </>
  );
}

/** Now, in ms, renewed every second while `ticking` (elapsed times of a live run). */
export function useNow(ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    setNow(Date.now());
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [ticking]);
  return now;
}
