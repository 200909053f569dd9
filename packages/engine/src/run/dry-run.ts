import {
  suggestion,
  ValidationError,
  type ActionCall,
  type ActionInvoker,
  type Testing,
} from '@weft/core';

/** The `testing.dryRun` block of a workflow (SPEC.md §2.19). */
export type DryRunSettings = NonNullable<Testing['dryRun']>;

/**
 * Answers action steps from `testing.dryRun.mockData[<connector reference or plugin>][<action>]`.
 * An action without a mock goes to `fallback`, unless `mockConnectors` is true (or there is no
 * fallback): then it is a `VALIDATION` error naming it, raised before anything runs.
 */
export class DryRunInvoker implements ActionInvoker {
  private readonly mocks: Record<string, Record<string, unknown>>;
  private readonly strict: boolean;

  constructor(
    settings: DryRunSettings,
    private readonly fallback: ActionInvoker | undefined,
  ) {
    this.mocks = settings.mockData ?? {};
    this.strict = settings.mockConnectors === true || fallback === undefined;
  }

  check(target: ActionCall['target'], action: string): void {
    if (this.mocked(target, action)) return;
    if (this.strict) throw this.unmocked(target, action);
    this.fallback?.check?.(target, action);
  }

  timeoutFor(target: ActionCall['target'], action: string): number | undefined {
    if (this.mocked(target, action)) return undefined;
    const fallback = this.fallback as
      { timeoutFor?: (t: ActionCall['target'], a: string) => number | undefined } | undefined;
    return fallback?.timeoutFor?.(target, action);
  }

  invoke(call: ActionCall): Promise<unknown> {
    const mock = this.mocked(call.target, call.action);
    if (mock) return Promise.resolve(structuredClone(mock.value));
    if (this.strict || !this.fallback)
      return Promise.reject(this.unmocked(call.target, call.action));
    return this.fallback.invoke(call);
  }

  private mocked(target: ActionCall['target'], action: string): { value: unknown } | undefined {
    const owner = ownerOf(target);
    const actions = Object.hasOwn(this.mocks, owner) ? this.mocks[owner] : undefined;
    return actions && Object.hasOwn(actions, action) ? { value: actions[action] } : undefined;
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
