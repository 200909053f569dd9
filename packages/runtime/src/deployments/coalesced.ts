/**
 * `task` wrapped so that each call resolves once a run of it that started after the call has
 * ended, while calls made during a run share one more run (a burst of misses costs two runs,
 * not one each). A run's failure rejects the calls it answers.
 */
export function coalesced(task: () => Promise<unknown>): () => Promise<void> {
  let running: Promise<void> | undefined;
  let next: Promise<void> | undefined;
  const run = (): Promise<void> => {
    const current = task().then(() => undefined);
    const ended: Promise<void> = current
      .catch(() => undefined)
      .then(() => {
        if (running === ended) running = undefined;
      });
    running = ended;
    return current;
  };
  return () => {
    if (!running) return run();
    next ??= running.then(() => {
      next = undefined;
      return run();
    });
    return next;
  };
}
