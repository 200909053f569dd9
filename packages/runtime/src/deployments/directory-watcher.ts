import { watch, type FSWatcher } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { deploymentKey, ForbiddenError } from '@weft/core';
import { isPlainObject } from '@weft/engine';
import { silentLogger, type TriggerLogger } from '../triggers/logger.js';
import type { DeploymentService } from './deployment-service.js';
import { fileProblems } from './file-problems.js';
import { parseDefinitionBody } from './parse-definition.js';

/** Options of {@link watchWorkflowDirectory}. */
export interface DirectoryWatchOptions {
  logger?: TriggerLogger;
  /** Quiet time after a change before redeploying, ms. Default 200. */
  debounceMs?: number;
  /** Largest workflow file, bytes. Default 1 MiB. */
  maxFileSize?: number;
  /** Deploy once and do not watch. */
  once?: boolean;
}

/** A watched directory. */
export interface WatchedDirectory {
  /** Deploys the files again now (also what a change triggers); resolves when done. */
  sync(file?: string): Promise<void>;
  close(): void;
}

const WORKFLOW_FILE = /\.(ya?ml|json)$/i;

/**
 * `weft server --workflows DIR`: deploys every workflow of every `*.yaml`, `*.yml` and `*.json`
 * file of `directory` at start, and again when a file changes (debounced); workflows that
 * disappear from a file, or whose file is deleted (also while no server ran), are undeployed. The
 * workflows of one file deploy together: when one fails validation, none is deployed, the
 * failure is logged and the previous deployments keep serving. A guarded workflow the directory
 * may not deploy (it has no caller: docs/authorization.md#deployments-and-triggers) fails the
 * first deployment, at start-up, with that refusal: the server does not start half-configured.
 */
export async function watchWorkflowDirectory(
  directory: string,
  service: DeploymentService,
  options: DirectoryWatchOptions = {},
): Promise<WatchedDirectory> {
  const root = resolve(directory);
  const logger = options.logger ?? silentLogger;
  const timers = new Map<string, NodeJS.Timeout>();

  /** Deploys one file; gives the refusal of a guarded workflow, if that is why it failed. */
  const syncFile = async (name: string): Promise<ForbiddenError | undefined> => {
    const path = join(root, name);
    const source = `file:${path}`;
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch {
      const gone = await service.undeploySource(source);
      if (gone.length > 0)
        logger.info({ file: path, workflows: gone }, 'workflow file removed: undeployed');
      return undefined;
    }
    try {
      const value = parseDefinitionBody(bytes, options.maxFileSize ?? 1024 * 1024);
      const list =
        isPlainObject(value) && Array.isArray(value['workflows']) ? value['workflows'] : undefined;
      if (!list) throw new Error('a workflow file needs a top-level "workflows" list');
      const deployed = await service.deployAll(list, source, null, undefined, {
        text: bytes.toString('utf8'),
      });
      // By owner and name: a file's workflows of an earlier directory owner
      // (`WEFT_WORKFLOWS_OWNER` changed) are this file's no more, and stop serving.
      const keys = new Set(deployed.map((d) => deploymentKey(d.record.owner, d.record.name)));
      for (const item of deployed) {
        for (const warning of item.warnings)
          logger.warn({ file: path, workflow: item.record.name }, `${path}: ${warning}`);
      }
      for (const record of await service.list()) {
        if (record.source === source && !keys.has(deploymentKey(record.owner, record.name)))
          await service.undeploy(record.name, undefined, record.owner);
      }
    } catch (error) {
      const known = (await service.list().catch(() => [])).map((record) => record.name);
      const problems = fileProblems(bytes, path, error, {
        maxFileSize: options.maxFileSize ?? 1024 * 1024,
        knownWorkflows: known,
      });
      if (problems.length === 0) {
        logger.error(
          { file: path, err: error },
          `could not deploy ${path}: ${(error as Error).message}`,
        );
      } else {
        // One line per problem, each naming its place as `weft workflow validate` does.
        const count = `${problems.length} problem${problems.length === 1 ? '' : 's'}`;
        logger.error(
          { file: path, problems: problems.length },
          `could not deploy ${path} (${count}; what it deployed before keeps serving):`,
        );
        for (const problem of problems) logger.error({ file: path }, problem);
      }
      if (error instanceof ForbiddenError && error.details['reason'] === 'directory_unauthorized')
        return error;
    }
    return undefined;
  };

  /** Deploys every file; gives the refusals of guarded workflows. */
  const syncAll = async (): Promise<ForbiddenError[]> => {
    const names = (await readdir(root)).filter((n) => WORKFLOW_FILE.test(n)).sort();
    const refused: ForbiddenError[] = [];
    for (const name of names) {
      const refusal = await syncFile(name);
      if (refusal) refused.push(refusal);
    }
    // Files of this directory deleted while no server watched it: undeploy their workflows.
    const present = new Set(names.map((name) => `file:${join(root, name)}`));
    const sources = new Set((await service.list()).map((r) => r.source));
    for (const source of sources) {
      if (!source.startsWith('file:') || present.has(source)) continue;
      if (dirname(source.slice('file:'.length)) !== root) continue;
      const gone = await service.undeploySource(source);
      logger.info(
        { file: source.slice('file:'.length), workflows: gone },
        'workflow file gone: undeployed',
      );
    }
    return refused;
  };

  const sync = async (file?: string): Promise<void> => {
    if (file !== undefined) await syncFile(file);
    else await syncAll();
  };

  const refused = await syncAll();
  if (refused.length > 0) {
    throw new ForbiddenError(refused.map((e) => e.message).join('\n'), {
      reason: 'directory_unauthorized',
      workflows: refused.map((e) => e.details['workflow']),
    });
  }
  if (options.once) return { sync, close: () => {} };
  const watcher: FSWatcher = watch(root, (_event, name) => {
    if (!name || !WORKFLOW_FILE.test(name)) return;
    clearTimeout(timers.get(name));
    timers.set(
      name,
      setTimeout(() => {
        timers.delete(name);
        void syncFile(name);
      }, options.debounceMs ?? 200),
    );
  });
  return {
    sync,
    close: () => {
      watcher.close();
      for (const timer of timers.values()) clearTimeout(timer);
    },
  };
}
