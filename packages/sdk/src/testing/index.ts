/**
 * `@weft/sdk/testing` (packages/sdk/README.md#testing): a mock Weft instance whose actions are answered by
 * mocked responses, so a workflow runs without any connector; results expose
 * `steps.<name>.output`.
 */
import {
  suggestion,
  ValidationError,
  type ActionCall,
  type ActionInvoker,
  type ExecutionContext,
} from '@weft/core';
import { ownerOf } from '@weft/engine';
import { Weft } from '../client/weft.js';
import type { WeftOptions } from '../client/options.js';

/** A mocked response: a value, or a function of the input (and context) giving it. */
export type MockResponse =
  unknown | ((input: Record<string, unknown>, context: ExecutionContext) => unknown);

/** One call the mock received. */
export interface MockCall {
  key: string;
  input: Record<string, unknown>;
}

/** A {@link Weft} whose every action is answered by {@link MockWeft.mockAction}. */
export class MockWeft extends Weft {
  /** Every action call, in order. */
  readonly calls: MockCall[] = [];
  private readonly responses = new Map<string, MockResponse>();
  private readonly mockInvoker: ActionInvoker = {
    check: (target, action) => void this.response(target, action),
    invoke: async (call: ActionCall) => {
      const key = `${ownerOf(call.target)}.${call.action}`;
      this.calls.push({ key, input: call.input });
      const response = this.response(call.target, call.action);
      const output =
        typeof response === 'function'
          ? await (response as (i: Record<string, unknown>, c: ExecutionContext) => unknown)(
              call.input,
              call.context,
            )
          : structuredClone(response);
      return { output };
    },
  };

  /** Answers `<plugin or connector reference>.<action>` with the value `fn` returns. */
  mockAction(
    key: string,
    fn: (input: Record<string, unknown>, context: ExecutionContext) => unknown,
  ): this;
  /** Answers `<plugin or connector reference>.<action>` with `response` (a copy each call). */
  mockAction(key: string, response: unknown): this;
  mockAction(key: string, response: MockResponse): this {
    this.responses.set(key, response);
    return this;
  }

  /** The calls received for one `<plugin>.<action>`. */
  callsOf(key: string): Record<string, unknown>[] {
    return this.calls.filter((c) => c.key === key).map((c) => c.input);
  }

  protected override actionInvoker(): ActionInvoker {
    return this.mockInvoker;
  }

  private response(target: ActionCall['target'], action: string): MockResponse {
    const key = `${ownerOf(target)}.${action}`;
    if (!this.responses.has(key)) {
      throw new ValidationError(
        `no mocked response for ${key}${suggestion(key, this.responses.keys())}: call mockAction("${key}", ...)`,
        {
          field: key,
          constraint: 'mocked',
        },
      );
    }
    return this.responses.get(key);
  }
}

/** A mock instance (logging off unless asked for). */
export function createMock(options: WeftOptions = {}): MockWeft {
  return new MockWeft({ logLevel: 'silent', ...options });
}
