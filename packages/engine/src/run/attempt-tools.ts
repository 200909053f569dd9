import type { ActionCall, InvocationResult, WeftError } from '@weft/core';
import type { ToolCallRequest, ToolRunner } from './agent-call.js';
import type { Invocation } from './interceptors.js';
import { retryDelayMs, type StepPlan } from './plan.js';
import type { Run } from './run.js';
import { StepContext } from './step-context.js';
import { abortOf } from './step-scope.js';

/** Codes a tool call is never retried on (as for steps). */
const FINAL_CODES = new Set(['VALIDATION', 'CANCELED']);

/** What an {@link Invocation} of a tool call carries in `tool`. */
export interface ToolInvocationInfo {
  /** The tool's name as the model knows it. */
  readonly name: string;
  /** 1 for the attempt's first tool call, n for the n-th. */
  readonly index: number;
}

/**
 * The {@link ToolRunner} of one agent attempt: each tool call is an invocation of the agent's
 * step (its `step`, `attempt` and `item`, with `tool` set), through the run's invoke hooks and
 * the action invoker, tracked like an attempt (deadline, cancel, interceptor abort), and aborted
 * with the agent attempt.
 */
export class AttemptTools implements ToolRunner {
  private count = 0;
  /** The tool calls in flight, aborted together by one listener on the attempt's signal. */
  private readonly live = new Set<StepContext>();
  private listening = false;

  constructor(
    private readonly run_: Run,
    private readonly plan: StepPlan,
    private readonly parent: StepContext,
    private readonly key: string,
    private readonly attempt: number,
    private readonly item: number | undefined,
  ) {}

  skip(): void {
    this.count++;
  }

  async run(request: ToolCallRequest): Promise<InvocationResult> {
    const run = this.run_;
    const index = ++this.count;
    const tool: ToolInvocationInfo = { name: request.name, index };
    const key = `${this.key}/tools/${index}`;
    const timeoutMs =
      run.options.timeoutFor?.(request.target, request.action) ?? run.options.defaultTimeoutMs;
    const retry = run.defaultRetry;
    const max = retry?.maxAttempts ?? 1;
    for (let failures = 0; ;) {
      const stopped = this.stopped();
      if (stopped !== undefined) throw stopped;
      const context = new StepContext(run.shared, this.plan.path, key);
      const call = this.call(request, context, tool);
      this.follow(context);
      try {
        return await run.track(this.plan, call, context, timeoutMs);
      } catch (error) {
        failures++;
        const code = (error as WeftError).code;
        if (failures >= max || FINAL_CODES.has(code) || this.stopped() !== undefined) throw error;
      } finally {
        this.live.delete(context);
      }
      await run.options.clock.sleep(retryDelayMs(retry!, failures), this.parent.signal);
    }
  }

  /**
   * Aborts `context` with the attempt. One listener serves every call, so a turn with many
   * parallel tool calls adds no listener per call (Node warns past 10 on one signal).
   */
  private follow(context: StepContext): void {
    this.live.add(context);
    if (this.listening) return;
    this.listening = true;
    const parent = this.parent.signal;
    parent.addEventListener(
      'abort',
      () => {
        for (const live of this.live) live.abort(parent.reason);
      },
      { once: true },
    );
  }

  private stopped(): unknown {
    const run = this.run_;
    if (this.parent.aborted) return this.parent.signal.reason;
    return run.canceled ?? (run.aborted ? abortOf(run, this.plan) : undefined);
  }

  private call(
    request: ToolCallRequest,
    context: StepContext,
    tool: ToolInvocationInfo,
  ): (ActionCall & { tool: ToolInvocationInfo }) | Invocation {
    const base = { target: request.target, action: request.action, input: request.input, context };
    if (!this.run_.options.chain?.invoke) return { ...base, tool };
    return {
      ...base,
      step: this.plan.info,
      run: this.run_.info!,
      attempt: this.attempt,
      item: this.item,
      tool,
    };
  }
}
