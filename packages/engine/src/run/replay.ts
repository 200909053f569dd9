import {
  fromErrorObject,
  ValidationError,
  type ActionInvoker,
  type InvocationResult,
  type StepAnswer,
} from '@weft/core';
import type {
  Invocation,
  RunInterceptor,
  StepCall,
  StepOutcome,
  TargetCheck,
} from './interceptors.js';

/** One attempt's recorded answer (an item answer without `attempts`). */
type Answer = { output?: unknown; error?: { code: string; message?: string | undefined } };

/**
 * Replays a recorded fixture (`testing.fixtures[].mockData`, keyed by step name) as an
 * interceptor: every action and agent invocation of the run is answered from the step's recorded
 * answer — per `for_each` item (`items`) and per attempt (`attempts`) when recorded so — and a
 * subworkflow step from its recorded `outputs`, without calling anything. A call without a
 * recorded answer fails its attempt with `VALIDATION` (constraint `recorded`): a replay never
 * falls back on a real connector or model. Targets are accepted without asking any invoker.
 */
export class ReplayInterceptor implements RunInterceptor {
  readonly name = 'replay';
  /** An invoker (and agent backend) that refuses every call: nothing real is ever reached. */
  readonly refusing: ActionInvoker;

  constructor(private readonly answers: Readonly<Record<string, StepAnswer>>) {
    this.refusing = {
      invoke: (call) =>
        Promise.reject(
          new ValidationError(`replay: nothing may be called (${call.action})`, {
            field: 'mockData',
            constraint: 'recorded',
          }),
        ),
      check: () => undefined,
    };
  }

  check(_check: TargetCheck, _next: (check: TargetCheck) => void): void {
    // Every target is answered from the recording: none is looked up.
  }

  step(call: StepCall, next: () => Promise<StepOutcome>): Promise<StepOutcome> {
    if (call.run.depth > 0 || call.step.kind !== 'workflow') return next();
    const answer = this.find(call.step.name);
    if (answer?.outputs === undefined) return next();
    return Promise.resolve({ outputs: structuredClone(answer.outputs) });
  }

  invoke(call: Invocation): Promise<InvocationResult> {
    // A subworkflow's steps are not replayed one by one: its step is answered as a whole.
    if (call.run.depth > 0 || call.tool !== undefined)
      return Promise.reject(this.missing(call.step.name, 'no answer for a call inside it'));
    const step = this.find(call.step.name);
    if (step === undefined) return Promise.reject(this.missing(call.step.name, 'no answer'));
    let answer: StepAnswer | undefined = step;
    if (step.items !== undefined) {
      answer = call.item === undefined ? undefined : step.items[call.item];
      if (answer === undefined)
        return Promise.reject(this.missing(call.step.name, `no answer for item ${call.item}`));
    }
    let attempt: Answer | undefined = answer;
    if (answer.attempts !== undefined) {
      attempt = answer.attempts[call.attempt - 1];
      if (attempt === undefined)
        return Promise.reject(
          this.missing(call.step.name, `no answer for attempt ${call.attempt}`),
        );
    }
    if (attempt.error !== undefined)
      return Promise.reject(
        fromErrorObject({
          code: attempt.error.code,
          message: attempt.error.message ?? `recorded failure (attempt ${call.attempt})`,
          details: {},
        }),
      );
    return Promise.resolve({ output: structuredClone(attempt.output ?? null) });
  }

  private find(name: string): StepAnswer | undefined {
    return Object.hasOwn(this.answers, name) ? this.answers[name] : undefined;
  }

  private missing(step: string, what: string): ValidationError {
    return new ValidationError(`replay: step "${step}" has ${what} in the fixture's mockData`, {
      field: `mockData.${step}`,
      constraint: 'recorded',
    });
  }
}
