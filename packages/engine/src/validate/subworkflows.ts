import { suggestion } from '@weft/core';
import satisfies from 'semver/functions/satisfies.js';
import validRange from 'semver/ranges/valid.js';
import type { Path } from '../diagnostics.js';
import type { Reporter } from '../load/reporter.js';
import type { WorkflowContext } from './context.js';

/** A `workflow:` step: who calls whom, and where. */
export interface SubworkflowCall {
  caller: string;
  callee: string;
  path: Path;
}

/**
 * Checks the subworkflow steps of one workflow: it does not call itself, a called workflow of the
 * file exists in a matching version and gets the inputs it declares. Returns the calls, for the
 * file-wide cycle check.
 */
export function checkSubworkflows(ctx: WorkflowContext): SubworkflowCall[] {
  const calls: SubworkflowCall[] = [];
  for (const { step, path } of ctx.steps) {
    if (step.type !== 'workflow' || step.workflow === undefined) continue;
    const at = [...path, 'workflow'];
    const name = step.workflow;
    if (name === ctx.workflow.name) {
      ctx.reporter.error(at, 'recursion', `workflow "${name}" calls itself`);
      continue;
    }
    calls.push({ caller: ctx.workflow.name, callee: name, path: at });
    const called = ctx.siblings.get(name);
    if (!called) {
      if (!ctx.options.knownWorkflows.has(name)) {
        ctx.reporter.warning(
          at,
          'unknown_workflow',
          `workflow "${name}" is not defined in this file${suggestion(name, ctx.siblings.keys())}; it must be deployed where this runs`,
        );
      }
      continue;
    }
    if (
      step.version !== undefined &&
      validRange(step.version) &&
      !satisfies(called.version, step.version)
    ) {
      ctx.reporter.error(
        [...path, 'version'],
        'version',
        `workflow "${name}" in this file is version ${called.version}, which does not match "${step.version}"`,
      );
    }
    const declared = Object.keys(called.inputs);
    for (const key of Object.keys(step.input ?? {})) {
      if (!declared.includes(key)) {
        ctx.reporter.error(
          [...path, 'input', key],
          'unknown_input',
          `workflow "${name}" has no input "${key}"${suggestion(key, declared)}`,
          { key: true },
        );
      }
    }
    for (const [key, spec] of Object.entries(called.inputs)) {
      if (spec.required && spec.default === undefined && !Object.hasOwn(step.input ?? {}, key)) {
        ctx.reporter.error(path, 'required', `workflow "${name}" needs the input "${key}"`, {
          expected: `input.${key}`,
          found: 'none',
        });
      }
    }
  }
  return calls;
}

/** Reports every cycle of subworkflow calls among the workflows of one file, once per cycle. */
export function checkCallCycles(calls: SubworkflowCall[], reporter: Reporter): void {
  const edges = new Map<string, SubworkflowCall[]>();
  for (const call of calls) edges.set(call.caller, [...(edges.get(call.caller) ?? []), call]);
  const done = new Set<string>();
  const onPath: string[] = [];
  const visit = (name: string): void => {
    if (done.has(name)) return;
    onPath.push(name);
    for (const call of edges.get(name) ?? []) {
      const start = onPath.indexOf(call.callee);
      if (start >= 0) {
        const cycle = [...onPath.slice(start), call.callee].join(' → ');
        reporter.error(call.path, 'recursion', `subworkflow calls form a cycle: ${cycle}`);
      } else {
        visit(call.callee);
      }
    }
    onPath.pop();
    done.add(name);
  };
  for (const name of edges.keys()) visit(name);
}
