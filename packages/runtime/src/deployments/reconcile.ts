import { WeftError, type DeploymentStore, type DetectorNames } from '@weft/core';
import type { WorkflowDefinition } from '@weft/engine';
import type { TriggerLogger } from '../triggers/logger.js';
import type { Activations } from './activations.js';
import { validateDefinition } from './parse-definition.js';

/** What one reconciliation changed. */
export interface Reconciled {
  /** Workflows whose stored revision is now served (new or redeployed elsewhere). */
  loaded: string[];
  /** Workflows no longer deployed, whose triggers stopped. */
  removed: string[];
}

/**
 * Brings the triggers this process serves in line with the deployments table: reads the active
 * revision of every name (one cheap query), stops serving names no longer deployed, and loads
 * only the names whose revision changed. A stored revision that cannot be served here (a secret
 * this process lacks) is logged once and not retried until its revision changes; `failed`
 * remembers those revisions between calls.
 */
export async function reconcileDeployments(
  store: DeploymentStore,
  activations: Activations,
  logger: TriggerLogger,
  failed: Map<string, number>,
  detectors?: DetectorNames,
): Promise<Reconciled> {
  const stored = await store.revisions();
  const result: Reconciled = { loaded: [], removed: [] };
  for (const name of activations.names()) {
    if (stored.has(name)) continue;
    // The replica that undeployed it cleared its schedule state; clearing again could race a
    // redeployment made since.
    await activations.deactivate(name, false);
    result.removed.push(name);
    logger.info({ workflow: name }, 'workflow undeployed (seen in the store)');
  }
  for (const name of failed.keys()) {
    if (stored.has(name)) continue;
    failed.delete(name);
    activations.unservable(name, null);
  }
  const known = [...stored.keys()];
  for (const [name, revision] of stored) {
    if (activations.revision(name) === revision || failed.get(name) === revision) continue;
    const record = await store.get(name);
    if (!record) continue;
    let workflow: WorkflowDefinition | undefined;
    try {
      ({ workflow } = validateDefinition(record.definition, known, detectors));
      await activations.activate(await activations.compile(workflow), record);
      failed.delete(name);
      result.loaded.push(name);
    } catch (error) {
      failed.set(name, record.revision);
      // Fail closed, and say so: its webhooks answer 503 here rather than 404.
      if (workflow && isMissingSecret(error)) activations.unservable(name, workflow);
      logger.error(
        { workflow: name, revision: record.revision, err: error },
        'could not serve the triggers of a deployed workflow',
      );
    }
  }
  return result;
}

/** True for the refusal of a webhook secret missing, empty or blank in this process. */
function isMissingSecret(error: unknown): boolean {
  return (
    error instanceof WeftError &&
    error.code === 'VALIDATION' &&
    error.details['constraint'] === 'secret_exists'
  );
}

/**
 * Runs `task` every `ms` until the returned function is called: the next run is timed after the
 * previous one ends, and the timer never keeps the process alive. Injectable where tests want to
 * run the task themselves.
 */
export type Repeat = (ms: number, task: () => Promise<void>) => () => void;

/** The real {@link Repeat}, on `setTimeout`. */
export const timerRepeat: Repeat = (ms, task) => {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const next = () => {
    timer = setTimeout(() => {
      void task().finally(() => {
        if (!stopped) next();
      });
    }, ms);
    timer.unref();
  };
  next();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
};
