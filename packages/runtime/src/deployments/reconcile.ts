import {
  parseDeploymentKey,
  WeftError,
  type DeploymentStore,
  type DetectorNames,
} from '@weft/core';
import type { WorkflowDefinition } from '@weft/engine';
import type { TriggerLogger } from '../triggers/logger.js';
import type { Activations } from './activations.js';
import { validateDefinition } from './parse-definition.js';

/** What one reconciliation changed. */
export interface Reconciled {
  /** Deployments (`owner/name`) whose stored revision is now served (new or redeployed elsewhere). */
  loaded: string[];
  /** Deployments (`owner/name`) no longer deployed, whose triggers stopped. */
  removed: string[];
}

/**
 * Brings the triggers this process serves in line with the deployments table: reads the active
 * revision of every deployment (one cheap query, by `owner/name`), stops serving those no longer
 * deployed, and loads only those whose revision changed. A stored revision that cannot be served here (a secret
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
  for (const key of activations.keys()) {
    if (stored.has(key)) continue;
    // The replica that undeployed it cleared its schedule state; clearing again could race a
    // redeployment made since.
    await activations.deactivate(key, false);
    result.removed.push(key);
    logger.info({ deployment: key }, 'workflow undeployed (seen in the store)');
  }
  for (const key of failed.keys()) {
    if (stored.has(key)) continue;
    failed.delete(key);
    activations.unservable(key, null);
  }
  // The names a definition may call: those of its own owner.
  const namesOf = new Map<string, string[]>();
  for (const key of stored.keys()) {
    const { owner, name } = parseDeploymentKey(key);
    namesOf.set(owner, [...(namesOf.get(owner) ?? []), name]);
  }
  for (const [key, revision] of stored) {
    if (activations.revision(key) === revision || failed.get(key) === revision) continue;
    const { owner, name } = parseDeploymentKey(key);
    const record = await store.get(owner, name);
    if (!record) continue;
    let workflow: WorkflowDefinition | undefined;
    try {
      ({ workflow } = validateDefinition(record.definition, namesOf.get(owner) ?? [], detectors));
      await activations.activate(await activations.compile(workflow, owner), record);
      failed.delete(key);
      result.loaded.push(key);
    } catch (error) {
      failed.set(key, record.revision);
      // Fail closed, and say so: its webhooks answer 503 here rather than 404.
      if (workflow && isMissingSecret(error)) activations.unservable(key, workflow);
      logger.error(
        { workflow: name, owner, revision: record.revision, err: error },
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
