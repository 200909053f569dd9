import {
  parseConnectorRef,
  suggestion,
  ValidationError,
  type ActionCall,
  type ActionInvoker,
  type InvocationResult,
  type Testing,
} from '@weft/core';
import type { Invocation, RunInterceptor, TargetCheck } from './interceptors.js';

/** The `testing.dryRun` block of a workflow (docs/workflow-language.md#testing). */
export type DryRunSettings = NonNullable<Testing['dryRun']>;

/** A step a dry run answered from `testing.dryRun.mockData` instead of calling it. */
export interface MockedStep {
  /** Path of the step: `step`, or `block/child` for a child of a parallel block. */
  step: string;
  /** The connector, plugin or agent the mock stood in for, as `mockData` keys it. */
  target: string;
  action: string;
}

/**
 * A dry run as an interceptor (`RunOptions.interceptors`): answers invocations from
 * `testing.dryRun.mockData[<connector reference or plugin>][<action>]` without calling the
 * invoker (a fresh copy each time), and accepts their targets before the run without asking it.
 * An action without a mock is passed on to the run's invoker, unless `mockConnectors` is true:
 * then it is a `VALIDATION` error naming it, raised before anything runs. Agent steps are
 * answered from `mockData[<agent reference>].run`. A run with nothing real to fall back on uses
 * {@link DryRunInterceptor.refusing} as its invoker (and as `agents`).
 */
export class DryRunInterceptor implements RunInterceptor {
  readonly name = 'dry-run';
  private readonly mocks: Record<string, Record<string, unknown>>;
  private readonly strict: boolean;
  /** An invoker that refuses every call and every check as unmocked. */
  readonly refusing: ActionInvoker;
  /** What mocks answered so far, once per step and action, in the order first answered. */
  private readonly answered = new Map<string, MockedStep>();

  constructor(settings: DryRunSettings) {
    this.mocks = settings.mockData ?? {};
    this.strict = settings.mockConnectors === true;
    this.refusing = {
      invoke: (call) => Promise.reject(this.unmocked(call.target, call.action)),
      check: (target, action) => {
        throw this.unmocked(target, action);
      },
    };
  }

  /** The steps (and agent tool calls, by their step) that mocks answered, in order. */
  mockedSteps(): MockedStep[] {
    return [...this.answered.values()];
  }

  /** Whether `mockData` answers `action` of `target`. */
  mocked(target: ActionCall['target'], action: string): boolean {
    return this.mock(target, action) !== undefined;
  }

  check(check: TargetCheck, next: (check: TargetCheck) => void): void {
    if (this.mocked(check.target, check.action)) return;
    if (this.strict) throw this.unmocked(check.target, check.action);
    next(check);
  }

  invoke(
    call: Invocation,
    next: (call: Invocation) => Promise<InvocationResult>,
  ): Promise<InvocationResult> {
    const mock = this.mock(call.target, call.action);
    if (mock) {
      const key = `${call.step.path}\u0000${ownerOf(call.target)}\u0000${call.action}`;
      if (!this.answered.has(key))
        this.answered.set(key, {
          step: call.step.path,
          target: ownerOf(call.target),
          action: call.action,
        });
      return Promise.resolve({ output: structuredClone(mock.value) });
    }
    if (this.strict) return Promise.reject(this.unmocked(call.target, call.action));
    return next(call);
  }

  private mock(target: ActionCall['target'], action: string): { value: unknown } | undefined {
    const owner = ownerOf(target);
    // The step's own key first, then a key naming the same connector the other way.
    const others = Object.keys(this.mocks).filter((key) => key !== owner);
    for (const key of Object.hasOwn(this.mocks, owner) ? [owner, ...others] : others) {
      if (!mockAnswers(key, owner)) continue;
      const actions = this.mocks[key];
      if (actions && Object.hasOwn(actions, action)) return { value: actions[action] };
    }
    return undefined;
  }

  private unmocked(target: ActionCall['target'], action: string): ValidationError {
    const owner = ownerOf(target);
    const hint = suggestion(owner, Object.keys(this.mocks));
    return new ValidationError(
      `dry run: no mock for ${owner} action "${action}" in testing.dryRun.mockData${hint}`,
      {
        field: `testing.dryRun.mockData.${owner}.${action}`,
        constraint: 'mocked',
      },
    );
  }
}

/** The key of a target in `mockData`: the plugin slug, or the whole connector reference. */
export function ownerOf(target: ActionCall['target']): string {
  return target.kind === 'plugin' ? target.slug : target.ref;
}

/**
 * Whether the `mockData` key `key` answers the steps of `owner` (a plugin slug, a connector
 * reference or an agent reference, as {@link ownerOf} gives): the same string, or the same
 * connector written the other way — a `connector:acme/tools@1.0.0` key answers steps written
 * `plugin: tools`, and a `tools` key answers steps of any `connector:<namespace>/tools@<version>`.
 */
export function mockAnswers(key: string, owner: string): boolean {
  if (key === owner) return true;
  const keyRef = parseConnectorRef(key);
  if (keyRef) return keyRef.name === owner;
  return parseConnectorRef(owner)?.name === key;
}
