import type { ActionCall, InvocationResult } from '@weft/core';
import { LocalInvoker } from '../invoker/local-invoker.js';

/** A local invoker that keeps the calls it was given (to see what reached it, `runtime` included). */
export class KeepingInvoker extends LocalInvoker {
  readonly calls: ActionCall[] = [];

  override invoke(call: ActionCall): Promise<InvocationResult> {
    this.calls.push(call);
    return super.invoke(call);
  }
}
