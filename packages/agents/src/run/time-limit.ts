import { TimeoutError } from '@weft/core';
import type { AgentCall } from '@weft/engine';

/** The attempt's signal, also fired after `timeLimit` seconds with a `TIMEOUT`. */
export function timeLimit(call: AgentCall, seconds: number | undefined) {
  if (seconds === undefined)
    return { signal: call.context.signal, fired: undefined, clear: () => {} };
  const controller = new AbortController();
  const state: { signal: AbortSignal; fired: TimeoutError | undefined; clear: () => void } = {
    signal: AbortSignal.any([call.context.signal, controller.signal]),
    fired: undefined,
    clear: () => clearTimeout(timer),
  };
  const started = Date.now();
  const timer = setTimeout(() => {
    state.fired = new TimeoutError(
      `agent step "${call.context.stepName}" ran past guardrails.timeLimit (${seconds} s)`,
      {
        timeout_ms: seconds * 1000,
        elapsed_ms: Date.now() - started,
        field: 'guardrails.timeLimit',
        constraint: 'timeLimit',
      },
    );
    controller.abort(state.fired);
  }, seconds * 1000);
  return state;
}
