import {
  AGENT_REF_PATTERN,
  CONNECTOR_REF_PATTERN,
  assertNever,
  CONNECTOR_DEFAULTS,
  type Step,
  type StepType,
} from '@weft/core';
import validVersion from 'semver/functions/valid.js';
import validRange from 'semver/ranges/valid.js';
import { formatPath, type Path } from '../diagnostics.js';
import type { Reporter } from '../load/reporter.js';
import { inferStepType } from '../model.js';
import { checkGuardrails } from './guardrails.js';
import { checkRuntime } from './runtime-limits.js';

type StepField = keyof Step;

/** Fields each kind of step must have, and fields it must not have. */
const KIND_RULES: Record<StepType, { needs: StepField[]; refuses: StepField[]; what: string }> = {
  action: {
    needs: ['action'],
    refuses: ['agent', 'backend', 'workflow', 'version', 'tool_approvals'],
    what: 'plugin (or connector) and action',
  },
  agent: {
    needs: ['agent'],
    refuses: ['plugin', 'connector', 'action', 'workflow', 'version', 'runtime'],
    what: 'agent',
  },
  workflow: {
    needs: ['workflow'],
    // A subworkflow call runs once; for_each would be ignored, `item` unbound.
    refuses: [
      'plugin',
      'connector',
      'action',
      'agent',
      'backend',
      'runtime',
      'guardrails',
      'for_each',
      'tool_approvals',
    ],
    what: 'workflow',
  },
  parallel: {
    needs: ['parallel'],
    refuses: [
      'plugin',
      'connector',
      'action',
      'agent',
      'backend',
      'workflow',
      'version',
      'input',
      'for_each',
      'runtime',
      'guardrails',
      'tool_approvals',
    ],
    what: 'parallel (a list of steps)',
  },
  transform: {
    needs: ['input'],
    refuses: [
      'plugin',
      'connector',
      'action',
      'agent',
      'backend',
      'workflow',
      'version',
      'runtime',
      'tool_approvals',
    ],
    what: 'input (the transform output)',
  },
};

/** Names that would clash with the fields read from a step (`steps.<block>.<child>` vs `.output`). */
const RESERVED_NAMES = new Set(['output', 'outputs', 'status', 'error']);

/**
 * Checks what the schema cannot: every step has one identifier (name or id), identifiers are
 * unique across the workflow (parallel children included), each step is of one kind with the
 * fields that kind needs, and references and versions are well formed.
 */
export function checkStepStructure(steps: Step[], base: Path, reporter: Reporter): void {
  const seen = new Map<string, Path>();
  const visit = (list: Step[], path: Path): void => {
    list.forEach((step, index) => {
      const at = [...path, index];
      checkIdentity(step, at, seen, reporter);
      checkKind(step, at, reporter);
      checkCommon(step, at, reporter);
      if (Array.isArray(step.parallel)) visit(step.parallel as Step[], [...at, 'parallel']);
    });
  };
  visit(steps, [...base, 'steps']);
}

function checkIdentity(step: Step, at: Path, seen: Map<string, Path>, reporter: Reporter): void {
  if (step.name !== undefined && step.id !== undefined) {
    reporter.error(
      [...at, 'id'],
      'identity',
      'give the step a name or an id, not both (they are the same field)',
      {
        key: true,
      },
    );
  }
  const name = step.name ?? step.id;
  if (name === undefined) {
    reporter.error(
      at,
      'required',
      'missing required key "name" (or "id"): every step needs an identifier',
      {
        expected: 'a key "name"',
        found: 'none',
      },
    );
    return;
  }
  const field = step.name !== undefined ? 'name' : 'id';
  if (RESERVED_NAMES.has(name)) {
    reporter.error(
      [...at, field],
      'reserved',
      `"${name}" is reserved (steps.<id>.${name} reads a field); name the step otherwise`,
    );
  }
  const first = seen.get(name);
  if (first) {
    reporter.error(
      [...at, field],
      'duplicate',
      `duplicate step name "${name}" (first used at ${formatPath(first)})`,
    );
  } else {
    seen.set(name, at);
  }
}

function checkKind(step: Step, at: Path, reporter: Reporter): void {
  const kind = inferStepType(step);
  if (kind === undefined) {
    reporter.error(
      at,
      'step_kind',
      'the step does nothing: give it plugin + action, connector + action, type: agent with agent, workflow, parallel, or type: transform with input',
    );
    return;
  }
  const rules = KIND_RULES[kind];
  for (const field of rules.needs) {
    if (step[field] === undefined) {
      reporter.error(at, 'required', `a ${kind} step needs "${field}" (it takes ${rules.what})`, {
        expected: `a key "${field}"`,
        found: 'none',
      });
    }
  }
  for (const field of rules.refuses) {
    if (step[field] !== undefined) {
      reporter.error([...at, field], 'step_kind', `"${field}" does not belong on a ${kind} step`, {
        key: true,
      });
    }
  }
  switch (kind) {
    case 'action':
      return checkAction(step, at, reporter);
    case 'agent':
      return checkAgentReference(step.agent, [...at, 'agent'], reporter);
    case 'workflow':
      if (step.version !== undefined && validRange(step.version) === null) {
        reporter.error(
          [...at, 'version'],
          'version',
          `expected a version or range such as 1.2.0 or ^1.2, found "${step.version}"`,
        );
      }
      return;
    case 'parallel':
      if (!Array.isArray(step.parallel)) {
        reporter.error([...at, 'parallel'], 'type', 'a parallel block needs a list of steps');
      }
      return;
    case 'transform':
      return;
    default:
      assertNever(kind, 'step type');
  }
}

function checkAction(step: Step, at: Path, reporter: Reporter): void {
  if (step.plugin !== undefined && step.connector !== undefined) {
    reporter.error([...at, 'connector'], 'step_kind', 'give plugin or connector, not both', {
      key: true,
    });
  } else if (step.plugin === undefined && step.connector === undefined) {
    reporter.error(
      at,
      'required',
      'an action step needs "plugin" or "connector" to say whose action it is',
      {
        expected: 'a key "plugin" or "connector"',
        found: 'none',
      },
    );
  }
  checkReference(step.connector, CONNECTOR_REF_PATTERN, [...at, 'connector'], reporter);
  // An action runs on a connector, whose executions last at most 600 s (docs/protocol.md#limits);
  // subworkflow steps may wait longer.
  const max = CONNECTOR_DEFAULTS.maxTimeoutSeconds;
  if (step.timeout !== undefined && step.timeout > max) {
    reporter.error(
      [...at, 'timeout'],
      'limit',
      `timeout ${step.timeout} s is over the limit of ${max} s of an action step (connector executions; a subworkflow step may wait longer)`,
      { expected: `at most ${max}`, found: String(step.timeout) },
    );
  }
}

/** Checks shared by every kind: `parallel: true`, runtime limits, guardrails. */
function checkCommon(step: Step, at: Path, reporter: Reporter): void {
  if (typeof step.parallel === 'boolean' && step.for_each === undefined) {
    reporter.error(
      [...at, 'parallel'],
      'parallel',
      '"parallel: true" only means something with for_each',
    );
  }
  if (step.runtime) checkRuntime(step.runtime, [...at, 'runtime'], reporter);
  checkGuardrails(step, at, reporter);
}

/** An agent reference: the part after @ is a version or a range (the highest match runs). */
function checkAgentReference(ref: string | undefined, at: Path, reporter: Reporter): void {
  if (ref === undefined) return;
  const version = new RegExp(AGENT_REF_PATTERN).exec(ref)?.[3];
  if (version !== undefined && validRange(version) === null) {
    reporter.error(
      at,
      'version',
      `the version after @ must be a version or range such as 1.0.0 or ^1.2, found "${version}"`,
    );
  }
}

function checkReference(
  ref: string | undefined,
  pattern: string,
  at: Path,
  reporter: Reporter,
): void {
  if (ref === undefined) return;
  const version = new RegExp(pattern).exec(ref)?.[3];
  if (version !== undefined && validVersion(version) === null) {
    reporter.error(
      at,
      'version',
      `the version after @ must be a semantic version such as 1.0.0, found "${version}"`,
    );
  }
}
