import type { ActionCall, ActionInvoker, Clock, ExecutionContext } from '@weft/core';

/** A handler of the test invoker. */
export type TestHandler = (input: Record<string, unknown>, context: ExecutionContext) => unknown;

/** An invoker over a map `<plugin>.<action>` → handler, recording every call. */
export class TestInvoker implements ActionInvoker {
  readonly calls: ActionCall[] = [];
  inFlight = 0;
  maxInFlight = 0;

  constructor(private readonly handlers: Record<string, TestHandler>) {}

  async invoke(call: ActionCall): Promise<unknown> {
    this.calls.push(call);
    const owner = call.target.kind === 'plugin' ? call.target.slug : call.target.ref;
    const handler = this.handlers[`${owner}.${call.action}`];
    if (!handler) throw new Error(`no handler for ${owner}.${call.action}`);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      return await handler(call.input, call.context);
    } finally {
      this.inFlight--;
    }
  }
}

/** A clock whose sleeps resolve at once and are recorded. */
export class FakeClock implements Clock {
  readonly sleeps: number[] = [];
  private time = 0;
  now(): number {
    return this.time;
  }
  sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    this.time += ms;
    return Promise.resolve();
  }
}

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
