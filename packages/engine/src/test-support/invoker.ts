import type {
  ActionCall,
  ActionInvoker,
  ExecutionContext,
  InvocationResult,
  InvocationUsage,
} from '@weft/core';

/** A handler of the test invoker. */
export type TestHandler = (input: Record<string, unknown>, context: ExecutionContext) => unknown;

/**
 * An invoker over a map `<plugin>.<action>` → handler, recording every call. A handler's value is
 * the output; a {@link withUsage} value also reports usage.
 */
export class TestInvoker implements ActionInvoker {
  readonly calls: ActionCall[] = [];
  inFlight = 0;
  maxInFlight = 0;

  constructor(private readonly handlers: Record<string, TestHandler>) {}

  async invoke(call: ActionCall): Promise<InvocationResult> {
    this.calls.push(call);
    const owner = call.target.kind === 'plugin' ? call.target.slug : call.target.ref;
    const handler = this.handlers[`${owner}.${call.action}`];
    if (!handler) throw new Error(`no handler for ${owner}.${call.action}`);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const value = await handler(call.input, call.context);
      return value instanceof WithUsage ? value.result : { output: value };
    } finally {
      this.inFlight--;
    }
  }
}

class WithUsage {
  constructor(readonly result: InvocationResult) {}
}

/** What a {@link TestHandler} returns to report `usage` beside its `output`. */
export function withUsage(output: unknown, usage: InvocationUsage): unknown {
  return new WithUsage({ output, usage });
}

export { ManualClock } from '@weft/core/testing';

/** Resolves after `ms` real milliseconds, or rejects when `signal` aborts. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}
