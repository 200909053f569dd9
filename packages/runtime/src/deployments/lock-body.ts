import { checkWorkflowLock, formatLockPath, ValidationError, type WorkflowLock } from '@weft/core';
import { isPlainObject } from '@weft/engine';

/**
 * Takes the optional top-level `lock` out of a deploy body (`PUT /workflows/{name}`): it is not
 * part of the definition (which is validated, stored and shown without it). A lock is checked
 * strictly (shape, known keys, sizes, checksums `sha256:<hex>`): `VALIDATION` naming the field
 * and the rule, before anything else is looked at.
 */
export function splitLock(body: unknown): { definition: unknown; lock?: WorkflowLock } {
  if (!isPlainObject(body) || !Object.hasOwn(body, 'lock')) return { definition: body };
  const { lock, ...definition } = body;
  const problem = checkWorkflowLock(lock);
  if (problem) {
    const field = formatLockPath(['lock', ...problem.path]);
    throw new ValidationError(`invalid lock: ${field} ${problem.message}`, {
      field,
      constraint: problem.constraint,
      ...(problem.limit !== undefined ? { limit: problem.limit } : {}),
    });
  }
  return { definition, lock: lock as WorkflowLock };
}
