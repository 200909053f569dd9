import { ForbiddenError } from '@weft/core';
import { MASK, type AgentCall, type ToolDecision } from '@weft/engine';
import type { PreparedTool } from './contract.js';
import { describeInvalid } from './prepare-tools.js';
import type { Tape } from './tape.js';

/** A rejected decision. */
type Rejection = Extract<ToolDecision, { verdict: 'reject' }>;

/** What comes of asking for a tool call's decision: the arguments to run with, or a refusal. */
export type Admission =
  | { readonly run: true; readonly input: Record<string, unknown>; readonly decision: ToolDecision }
  | { readonly run: false; readonly error: Error; readonly code: string; readonly message: string };

/**
 * The tool approvals of one agent step attempt (docs/agents.md#tool-approvals): asks the run's
 * gate (`AgentCall.approvals`; none: refused with `approval_required`) for the decision on a
 * call, keeps the decisions in the step's {@link Tape}, and stops the step ({@link signal})
 * when it waits for a decision or a rejection fails it (`on_reject: fail`).
 */
export class StepApprovals {
  private readonly stop = new AbortController();
  private stopped: { error: unknown; waits: boolean } | undefined;
  /** The tool calls running now: a wait saves their results, so it lets them finish first. */
  private readonly running = new Set<Promise<unknown>>();

  constructor(
    private readonly call: AgentCall,
    private readonly tape: Tape | undefined,
    /** What the step's turns cost so far (saved with the tape). */
    private readonly costUsd: () => number,
  ) {}

  /** Fires when the step stops here (it waits, or a rejection fails it). */
  get signal(): AbortSignal {
    return this.stop.signal;
  }

  /** Why the step stopped here, if it did: the error it ends with; `waits` when it waits. */
  get failure(): { error: unknown; waits: boolean } | undefined {
    return this.stopped;
  }

  /** Follows a tool call that runs until it settles. */
  track<T>(running: Promise<T>): Promise<T> {
    this.running.add(running);
    void running.then(
      () => this.running.delete(running),
      () => this.running.delete(running),
    );
    return running;
  }

  /**
   * Asks for the decision on a call of `tool` (whose spec has `approval`) with `input`: the
   * input to run it with (the approver's edited arguments, checked against the tool's schema),
   * or the error the model gets. Throws when the step stops here.
   */
  async admit(
    tool: PreparedTool,
    input: Record<string, unknown>,
    callId: string,
  ): Promise<Admission> {
    const decision = await this.decide(tool, input, callId);
    if (decision.verdict === 'reject') return this.reject(tool, decision);
    if (decision.arguments === undefined) return { run: true, input, decision };
    // The approver saw secret values masked: a `***` left where the call had a value keeps it.
    const edited = keepMasked(decision.arguments, input) as Record<string, unknown>;
    if (!tool.validate(edited)) {
      const message = `the approved arguments of ${tool.spec.name} are invalid: ${describeInvalid(tool.validate)}`;
      return {
        run: false,
        error: new Error(`VALIDATION: ${message}`),
        code: 'VALIDATION',
        message,
      };
    }
    return { run: true, input: edited, decision };
  }

  private async decide(
    tool: PreparedTool,
    input: Record<string, unknown>,
    callId: string,
  ): Promise<ToolDecision> {
    const known = this.tape?.decision(callId);
    if (known) return known;
    const approval = tool.spec.approval!;
    const gate = this.call.approvals;
    let decision: ToolDecision;
    if (!gate) {
      decision = { verdict: 'reject', by: 'weft', reason: 'approval_required', code: 'FORBIDDEN' };
    } else {
      try {
        decision = await gate.decide(
          {
            step: this.call.context.stepName,
            key: this.call.context.idempotencyKey,
            tool: tool.spec.name,
            callId,
            arguments: input,
            inputSchema: tool.inputSchema,
            approvers: approval.approvers,
            timeoutSeconds: approval.timeout,
            onReject: approval.on_reject ?? 'continue',
          },
          async () => {
            // The tool calls of the turn that run finish first: their results are saved.
            await Promise.allSettled([...this.running]);
            return this.tape!.snapshot(this.costUsd());
          },
        );
      } catch (error) {
        return this.halt(error, true);
      }
    }
    this.tape?.recordDecision(callId, decision);
    return decision;
  }

  /** A rejected call: the error the model gets, or (`on_reject: fail`) the step's end. */
  private reject(tool: PreparedTool, decision: Rejection): Admission {
    const message = rejectionMessage(tool.spec.name, decision);
    const code = decision.code ?? 'FORBIDDEN';
    if ((tool.spec.approval?.on_reject ?? 'continue') === 'fail') {
      this.halt(
        new ForbiddenError(`agent step "${this.call.context.stepName}": ${message}`, {
          reason:
            decision.reason === 'approval_required' ? 'approval_required' : 'approval_rejected',
          tool: tool.spec.name,
          rejected_by: decision.by,
          missing_roles: [],
          missing_permissions: [],
        }),
        false,
      );
    }
    return { run: false, error: new Error(`${code}: ${message}`), code, message };
  }

  /** Stops the step with `error` (the backend's loop ends on {@link signal}); throws it. */
  private halt(error: unknown, waits: boolean): never {
    this.stopped ??= { error, waits };
    this.stop.abort(error);
    throw error;
  }
}

/** What the model is told of a rejected tool call. */
function rejectionMessage(tool: string, decision: Rejection): string {
  if (decision.reason === 'expired') {
    return `the call of ${tool} was rejected: nobody approved it in time (expired); it did not run`;
  }
  if (decision.reason === 'approval_required') {
    return `the call of ${tool} needs approval and nobody here can give it (approval_required); it did not run`;
  }
  return `the call of ${tool} was rejected by ${decision.by}: ${decision.reason}; it did not run`;
}

/**
 * `edited` with each {@link MASK} that stands where `original` has another value replaced by
 * that value: the approver was shown the arguments with secret values masked, and sends back
 * what it saw where it changed nothing.
 */
export function keepMasked(edited: unknown, original: unknown): unknown {
  if (edited === MASK) return original !== undefined ? original : edited;
  if (Array.isArray(edited)) {
    return edited.map((item, i) =>
      keepMasked(item, Array.isArray(original) ? original[i] : undefined),
    );
  }
  if (typeof edited === 'object' && edited !== null) {
    const from =
      typeof original === 'object' && original !== null && !Array.isArray(original)
        ? (original as Record<string, unknown>)
        : {};
    return Object.fromEntries(
      Object.entries(edited).map(([key, value]) => [
        key,
        keepMasked(value, Object.hasOwn(from, key) ? from[key] : undefined),
      ]),
    );
  }
  return edited;
}
