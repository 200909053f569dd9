import type { ExecutionContext, ExecutionMode, PreviousStep } from '@weft/core';

/** What every step context of one run shares. */
export interface SharedContext {
  workflowId: string;
  inputs: Readonly<Record<string, unknown>>;
  executionMode: ExecutionMode;
  environment: Readonly<Record<string, string | undefined>>;
  secrets: Readonly<Record<string, string>>;
  previousSteps: Readonly<Record<string, PreviousStep>>;
  progress(stepPath: string, percent: number, message: string): void;
  /** Registers a value read as a secret by another path (see `ExecutionContext.addSecret`). */
  addSecret(name: string, value: string): void;
}

/**
 * The context (docs/protocol.md#execution-context) of one action attempt. Its `signal` is created on first use, so handlers that
 * never look at it cost no AbortController.
 */
export class StepContext implements ExecutionContext {
  private controller: AbortController | undefined;
  private reason: unknown;

  constructor(
    private readonly shared: SharedContext,
    readonly stepName: string,
    readonly idempotencyKey: string,
  ) {}

  get workflowId(): string {
    return this.shared.workflowId;
  }
  get inputs(): Readonly<Record<string, unknown>> {
    return this.shared.inputs;
  }
  get executionMode(): ExecutionMode {
    return this.shared.executionMode;
  }
  get environment(): Readonly<Record<string, string | undefined>> {
    return this.shared.environment;
  }
  get secrets(): Readonly<Record<string, string>> {
    return this.shared.secrets;
  }
  get previousSteps(): Readonly<Record<string, PreviousStep>> {
    return this.shared.previousSteps;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.reason !== undefined) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.reason !== undefined;
  }

  progress(percent: number, message = ''): void {
    this.shared.progress(this.stepName, percent, message);
  }

  addSecret(name: string, value: string): void {
    this.shared.addSecret(name, value);
  }

  /** Aborts the attempt (timeout or cancel): the handler's signal fires with `reason`. */
  abort(reason: unknown): void {
    this.reason = reason;
    this.controller?.abort(reason);
  }
}
