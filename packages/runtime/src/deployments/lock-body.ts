import { checkWorkflowLock, formatLockPath, ValidationError, type WorkflowLock } from '@weft/core';
import { isPlainObject } from '@weft/engine';

/**
 * Takes the optional top-level `lock` out of a deploy body (`PUT /workflows/{name}`): it is not
 * part of the definition (which is validated, stored and shown without it). A lock is checked
 * strictly (shape, known keys, sizes, checksums `sha256:<hex>`): `VALIDATION` naming the field
 * and the rule, before anything else is looked at. The text kept as deployed is the body's,
 * without the lock when it was JSON (what `weft workflow deploy` sends); YAML is kept as sent.
 */
export function splitLock(
  body: unknown,
  sent?: string,
): { definition: unknown; lock?: WorkflowLock; text?: string } {
  const as = sent !== undefined ? { text: sent } : {};
  if (!isPlainObject(body) || !Object.hasOwn(body, 'lock')) return { definition: body, ...as };
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
  const json = sent !== undefined && sent.trimStart().startsWith('{');
  return {
    definition,
    lock: lock as WorkflowLock,
    ...(json ? { text: JSON.stringify(definition) } : as),
  };
}
