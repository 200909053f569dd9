import { BackendError, WeftError, type ActionCall } from '@weft/core';
import type { JsonDataProblem } from './json-data.js';
import type { StepPlan } from './plan.js';

/**
 * `BACKEND_ERROR` for an output that is not JSON data (a cycle, a BigInt, a class instance...),
 * naming the step and where in the output: the action misbehaved, the run goes on as after any
 * failed attempt.
 */
export function notJsonData(
  plan: StepPlan,
  call: Pick<ActionCall, 'target' | 'action'>,
  problem: JsonDataProblem,
): BackendError {
  const backend = call.target.kind === 'plugin' ? call.target.slug : call.target.ref;
  const message = `the output of ${backend}.${call.action} is not JSON data: ${problem.path} is ${problem.found}`;
  return new BackendError(`step "${plan.path}": ${message}`, {
    backend,
    original_error: message,
    field: problem.path,
    constraint: 'json_data',
  });
}

/** Keeps a `WeftError`; reports anything else a handler threw as `BACKEND_ERROR`. */
export function asActionError(error: unknown, call: Pick<ActionCall, 'target'>): WeftError {
  if (error instanceof WeftError) return error;
  const backend = call.target.kind === 'plugin' ? call.target.slug : call.target.ref;
  const message = error instanceof Error ? error.message : String(error);
  return new BackendError(
    `${backend} failed: ${message}`,
    { backend, original_error: message },
    { cause: error },
  );
}
