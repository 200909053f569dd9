import { Agent } from 'undici';
import type { TraceCarrier } from '@weft/telemetry';
import type { CallbackBody, StoredExecution } from '@weft/core';
import {
  deliverCallback,
  postCallback,
  generateSigningSecret,
  type CallbackOutcome,
} from '@weft/sdk/callbacks';
import type { CompiledRuntimeOptions } from '../options.js';
import type { CallbackEgress } from './egress.js';

/**
 * Delivers completion callbacks (docs/runtime.md#callbacks): the body signed with the Standard Webhooks
 * headers under the key's signing secret, retried with exponential backoff on network errors,
 * 5xx, 408 and 429 (honouring `Retry-After`), never following redirects; every attempt and the
 * delivery state are recorded on the execution.
 */
export class CallbackSender {
  private readonly agent: Agent;
  private readonly stop = new AbortController();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly options: CompiledRuntimeOptions,
    private readonly egress: CallbackEgress,
  ) {
    this.agent = new Agent({ connect: { lookup: egress.lookup() } });
  }

  /** The body sent for an ended execution. */
  static body(execution: StoredExecution): CallbackBody {
    return {
      execution_id: execution.id,
      status: execution.status,
      result: execution.result ?? { outputs: {} },
      ...(execution.error ? { error: execution.error } : {}),
    };
  }

  /**
   * Starts delivering in the background (tracked, so {@link close} can wait). `trace`: the run's
   * trace context, sent as `traceparent`/`tracestate` (a traced run that ended here); else the
   * trace context stored with the execution (a callback retried after a restart).
   */
  send(execution: StoredExecution, trace?: TraceCarrier): void {
    const delivery = this.deliver(execution, trace ?? execution.trace_context)
      .catch((error: unknown) => this.options.onError(error, `callback of ${execution.id}`))
      .finally(() => this.inFlight.delete(delivery));
    this.inFlight.add(delivery);
  }

  /** Stops retrying; pending deliveries resume at the next start. */
  async close(): Promise<void> {
    this.stop.abort();
    await Promise.allSettled([...this.inFlight]);
    await this.agent.close();
  }

  /** Delivers one callback until it succeeds, fails for good or runs out of attempts. */
  async deliver(execution: StoredExecution, trace?: TraceCarrier): Promise<void> {
    const url = execution.callback_url;
    const state = execution.callback;
    if (!url || !state || state.status !== 'pending') return;
    const { store, clock, callbacks } = this.options;
    const secret = await store.signingSecret(
      execution.key_id ?? `owner:${execution.owner}`,
      generateSigningSecret,
    );
    const body = JSON.stringify(CallbackSender.body(execution));
    await deliverCallback({
      state,
      policy: callbacks,
      clock,
      signal: this.stop.signal,
      attempt: () => this.attempt(url, secret, state.webhook_id, body, trace),
      record: (attempt, next) => store.recordCallback(execution.id, attempt, next),
    });
  }

  private async attempt(
    url: string,
    secret: string,
    id: string,
    body: string,
    trace: TraceCarrier | undefined,
  ): Promise<CallbackOutcome> {
    const refused = await this.egress.check(url).then(
      () => undefined,
      (error: Error) => error.message,
    );
    if (refused) return { status: null, error: refused };
    return postCallback({
      url,
      secret,
      webhookId: id,
      body,
      now: this.options.clock.now(),
      signal: AbortSignal.any([
        AbortSignal.timeout(this.options.callbacks.timeoutMs),
        this.stop.signal,
      ]),
      trace: { ...trace },
      dispatcher: this.agent,
    });
  }
}
