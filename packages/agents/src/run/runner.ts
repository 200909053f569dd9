import {
  toErrorObject,
  UnavailableError,
  ValidationError,
  type ActionCall,
  type Guardrails,
  type InvocationResult,
  type SecretsProvider,
  type StepType,
} from '@weft/core';
import type { AgentCall, AgentInvoker, StepInfo } from '@weft/engine';
import { AgentCatalog } from '../definition/catalog.js';
import { effectiveGuardrails } from '../definition/guardrails.js';
import { DEFAULT_MAX_STEPS, type AgentDefinition } from '../definition/schema.js';
import { toolsOf, withStepApprovals, type ToolSpec } from '../definition/tools.js';
import { Budget, type Spent } from './budget.js';
import type { AgentBackend, ModelTurnEnd, ModelTurnObserver } from './contract.js';
import { CostLedger } from './cost-ledger.js';
import { errorText } from '../backends/common.js';
import { prepareTools, type ActionLookup } from './prepare-tools.js';
import { BudgetsAcrossRuns, DEFAULT_BUDGETED_OUTPUT_TOKENS } from './run-budgets.js';
import { StepApprovals } from './step-approvals.js';
import { timeLimit } from './time-limit.js';
import { asTape, Tape, tapes } from './tape.js';

/** Default limit of one model answer: 10 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/** Backends weft knows of, and what to do when one is not installed. */
const KNOWN_BACKENDS: Record<string, string> = {
  'ai-sdk': 'the ai-sdk backend is built in: give the runner an AiSdkBackend',
  langchain: 'the langchain backend is built in: give the runner a LangChainBackend',
};

/** Options of {@link AgentRunner}. */
export interface AgentRunnerOptions {
  /** The agent definitions steps may reference. */
  agents: AgentCatalog | Iterable<AgentDefinition>;
  /** The input schemas of the actions agents use as tools. */
  actions: ActionLookup;
  /** Where `api_key_secret` is read (the run's secrets provider). */
  secrets: SecretsProvider;
  /** The backends by name; an agent's `backend` (default `ai-sdk`) picks one. */
  backends: readonly AgentBackend[];
  /** Most bytes of one model answer. Default {@link DEFAULT_MAX_RESPONSE_BYTES}. */
  maxResponseBytes?: number;
  /** What each execution spent, for `maxCost` (default: one ledger per runner). */
  costs?: CostLedger;
  /**
   * Budgets across runs (a workflow's `budgets`, workspace budgets): the ledger each live model
   * call reserves in. Default: none, and a step of a workflow with `budgets` fails (fail closed).
   */
  budgets?: BudgetsAcrossRuns;
  /**
   * Sees each model turn (the server's tracing makes a GenAI span of it: `chat <model>`).
   * Also settable later ({@link AgentRunner.turns}), once tracing is set up.
   */
  turns?: ModelTurnObserver;
  /**
   * Refuses an agent's `api_key_secret` before the secret is read (the server's policy for
   * published agents): the error the step fails with, or undefined to read it. Asked before the
   * run (`check`) and again at each step. Default: every agent may read its secret.
   */
  secretRefusal?: (agent: AgentDefinition, secret: string) => Error | undefined;
}

/** One entry of the step output's `tool_calls`. */
interface ToolCallRecord {
  name: string;
  input: unknown;
  output: unknown;
  error?: { code: string; message: string };
  /** Who approved the call (a tool with `approval`). */
  approved_by?: string;
  /** Who edited its arguments when approving. */
  edited_by?: string;
}

/**
 * Runs agent steps (the engine's `RunOptions.agents`): resolves the step's agent reference
 * (ranges pick the highest match), merges its guardrails with the step's, reads its key from
 * the secrets provider, gives its backend the tools (actions run through the engine's chain
 * and invoker), enforces the budgets and `timeLimit`, and answers
 * `{text, data?, tool_calls, usage}` with the step's usage.
 */
export class AgentRunner implements AgentInvoker {
  readonly catalog: AgentCatalog;
  private readonly backends: Map<string, AgentBackend>;
  private readonly maxResponseBytes: number;
  private readonly costs: CostLedger;
  private readonly budgets: BudgetsAcrossRuns;
  private readonly toolSpecs = new WeakMap<AgentDefinition, ToolSpec[]>();
  /** What failed attempts spent, by step (idempotency key), for the step's next attempt. */
  private readonly carried = new Map<string, Spent>();
  /** Sees each model turn (see {@link AgentRunnerOptions.turns}); undefined: nobody. */
  turns: ModelTurnObserver | undefined;

  constructor(private readonly options: AgentRunnerOptions) {
    this.catalog =
      options.agents instanceof AgentCatalog ? options.agents : new AgentCatalog(options.agents);
    this.backends = new Map(options.backends.map((b) => [b.name, b]));
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.costs = options.costs ?? new CostLedger();
    this.budgets = options.budgets ?? new BudgetsAcrossRuns({ ledger: undefined });
    this.turns = options.turns;
  }

  /**
   * What the content guardrails interceptor (`@weft/guardrails`) needs to check agent steps as
   * this runner does: the agent's default guardrails merged with the step's, and `timeLimit`
   * left to the runner on agent steps (it ends the step with its own TIMEOUT).
   */
  guardrailsOptions(): {
    resolve: (step: StepInfo) => Guardrails | undefined;
    timeLimitOn: StepType[];
  } {
    return {
      resolve: (step) => {
        const own = step.definition.guardrails;
        if (step.kind !== 'agent' || step.target === undefined) return own;
        const ref = step.target.kind === 'connector' ? step.target.ref : step.target.slug;
        let agent: AgentDefinition | undefined;
        try {
          agent = this.catalog.resolve(ref);
        } catch {
          return own; // the step fails on its unknown agent before any output is checked
        }
        return effectiveGuardrails(agent, own);
      },
      timeLimitOn: ['action', 'transform'],
    };
  }

  /** Before the run: the agent a step references exists. */
  check(target: ActionCall['target']): void {
    if (target.kind !== 'connector') return;
    const agent = this.catalog.resolve(target.ref);
    this.refuseSecret(agent);
  }

  async invoke(call: AgentCall): Promise<InvocationResult> {
    const ref = call.target.kind === 'connector' ? call.target.ref : call.target.slug;
    const agent = this.catalog.resolve(ref);
    const backend = this.backendOf(call.definition.backend ?? agent.backend ?? 'ai-sdk');
    const { prompt, ...rest } = call.input;
    if (typeof prompt !== 'string' || prompt.trim() === '') {
      throw new ValidationError(
        `agent step "${call.context.stepName}" needs input.prompt, the user message`,
        {
          field: 'input.prompt',
          constraint: 'required',
        },
      );
    }
    const specs = withStepApprovals(this.specs(agent), call.definition.tool_approvals);
    const tools = await prepareTools(specs, this.options.actions);
    // A step that may wait for a tool call's approval records its model exchanges and tool
    // results, and resumes from what it saved when it waited (docs/agents.md#tool-approvals).
    const stepKey = call.context.idempotencyKey;
    const tape = specs.some((spec) => spec.approval)
      ? new Tape(asTape(call.approvals?.saved(stepKey)))
      : undefined;
    const apiKey = await this.apiKey(agent, call);
    const guardrails = effectiveGuardrails(agent, call.definition.guardrails);
    const executionId = call.context.workflowId;
    // Budgets hold over the step: a retry starts from what the failed attempts spent.
    const carried = this.carried.get(stepKey);
    await this.costs.ensure(executionId); // a run taken over elsewhere: what was spent before
    // Budgets across runs: every live model call reserves first (it then needs an output cap).
    const ledger = await this.budgets.forStep(call, agent);
    const settling: Promise<void>[] = [];
    const budget = new Budget(
      guardrails,
      agent.pricing,
      // Replayed turns were counted when they ran: the budget sees them once.
      this.costs.spentBy(executionId) - (carried?.costUsd ?? 0) - (tape?.saved?.costUsd ?? 0),
      agent.max_output_tokens ?? (ledger.budgeted ? DEFAULT_BUDGETED_OUTPUT_TOKENS : undefined),
      carried,
    );
    const maxSteps = agent.max_steps ?? DEFAULT_MAX_STEPS;
    const toolCalls: ToolCallRecord[] = [];
    const limit = timeLimit(call, guardrails?.timeLimit);
    let turns = 0;
    const progress = (message: string, data: Record<string, unknown>) =>
      call.report(Math.min(99, Math.round((turns / maxSteps) * 100)), message, { agent: data });
    let costBefore = budget.costUsd;
    const observer = this.turns;
    let turnEnd: ((end: ModelTurnEnd) => void) | undefined;
    const [provider, ...model] = agent.model.split(':');
    const approvals = new StepApprovals(call, tape, () => budget.costUsd);
    try {
      const run = () =>
        backend.run({
          agent,
          apiKey,
          prompt,
          context: Object.keys(rest).length > 0 ? rest : undefined,
          tools,
          maxSteps,
          budget,
          signal: AbortSignal.any([limit.signal, approvals.signal]),
          maxResponseBytes: this.maxResponseBytes,
          reserveModelCall: (live) => ledger.reserve(live),
          ...(tape && tape.savedTurns > 0 ? { replayedTurns: tape.savedTurns } : {}),
          runTool: async (tool, given, callId) => {
            if (!budget.admitToolCall(tool.spec.name)) throw budget.tripped;
            let input = given;
            const record: ToolCallRecord = { name: tool.spec.name, input, output: null };
            const recorded = tape?.tool(callId);
            if (recorded) {
              // Ran before the step waited: its result, not a second run.
              if (!('rejected' in recorded)) call.tools.skip?.();
              toolCalls.push(record);
              if ('error' in recorded) {
                record.error = { code: recorded.code, message: recorded.error };
                throw new Error(recorded.error);
              }
              record.output = recorded.output;
              return recorded.output;
            }
            if (tool.spec.approval) {
              const admitted = await approvals.admit(tool, input, callId);
              if (!admitted.run) {
                toolCalls.push({
                  ...record,
                  error: { code: admitted.code, message: admitted.message },
                });
                tape?.recordTool(callId, {
                  error: admitted.error.message,
                  code: admitted.code,
                  rejected: true,
                });
                throw admitted.error;
              }
              if (admitted.input !== input) {
                input = admitted.input;
                record.input = input;
                record.edited_by = admitted.decision.by;
              }
              record.approved_by = admitted.decision.by;
            }
            toolCalls.push(record);
            const running = approvals.track(
              call.tools.run({
                target: tool.spec.target,
                action: tool.spec.action,
                input,
                name: tool.spec.name,
              }),
            );
            try {
              const result = await running;
              record.output = result.output;
              tape?.recordTool(callId, { output: result.output });
              return result.output;
            } catch (error) {
              const object = toErrorObject(error);
              record.error = { code: object.code, message: object.message };
              if (!approvals.signal.aborted) {
                tape?.recordTool(callId, { error: errorText(error), code: object.code });
              }
              throw error;
            } finally {
              progress(
                `tool ${tool.spec.name}${record.error ? ` failed (${record.error.code})` : ''}`,
                {
                  turn: turns + 1,
                  tool: tool.spec.name,
                  status: record.error ? 'failed' : 'success',
                  tool_calls: budget.toolCalls,
                },
              );
            }
          },
          onRefusedCall: (name, input, error) => {
            toolCalls.push({
              name,
              input,
              output: null,
              error: { code: 'VALIDATION', message: error },
            });
          },
          ...(observer
            ? {
                onTurnStart: (turn: number, maxOutputTokens: number | undefined) => {
                  turnEnd = observer.turnStarted({
                    agent: `${agent.namespace}/${agent.name}`,
                    provider: provider!,
                    model: model.join(':'),
                    turn,
                    maxOutputTokens,
                    temperature: agent.temperature,
                    trace: call.trace,
                  });
                },
              }
            : {}),
          onTurn: (turn) => {
            turnEnd?.({
              inputTokens: turn.inputTokens,
              outputTokens: turn.outputTokens,
              ...(turn.finishReason !== undefined ? { finishReason: turn.finishReason } : {}),
            });
            turnEnd = undefined;
            turns = turn.turn;
            budget.addTurn(turn);
            // A replayed turn was paid when it ran: not counted (nor settled) again.
            if (!tape?.lastReplayed) {
              settling.push(ledger.settleTurn(turn.inputTokens, turn.outputTokens));
              this.costs.add(executionId, budget.costUsd - costBefore);
            }
            costBefore = budget.costUsd;
            const names = turn.toolNames;
            progress(`turn ${turn.turn}${names.length > 0 ? `: ${names.join(', ')}` : ''}`, {
              turn: turn.turn,
              tools: names,
              usage: budget.usage(),
            });
          },
        });
      const answer = tape ? await tapes.run(tape, run) : await run();
      if (approvals.failure) throw approvals.failure.error;
      const usage = budget.usage();
      const output = {
        text: answer.text,
        ...(answer.data !== undefined ? { data: answer.data } : {}),
        tool_calls: toolCalls,
        usage,
      };
      this.carried.delete(stepKey);
      return { output, usage };
    } catch (error) {
      const stopped = approvals.failure;
      const failure = stopped?.error ?? limit.fired ?? ledger.refusal ?? error;
      turnEnd?.({ errorCode: toErrorObject(failure).code });
      // A step that waits resumes from its saved turns, not from what it carried.
      if (stopped?.waits) {
        this.carried.delete(stepKey);
        throw failure;
      }
      if (this.carried.size >= 10_000) this.carried.delete(this.carried.keys().next().value!);
      this.carried.set(stepKey, budget.spent());
      throw failure;
    } finally {
      limit.clear();
      await Promise.all(settling);
      await ledger.close();
    }
  }

  private backendOf(name: string): AgentBackend {
    const backend = this.backends.get(name);
    if (backend) return backend;
    throw new UnavailableError(`the agent backend "${name}" is not available here`, {
      backend: name,
      suggestion: KNOWN_BACKENDS[name] ?? `known backends: ${[...this.backends.keys()].join(', ')}`,
    });
  }

  /** The tools of an agent (their schemas are looked up at each run: plugins change). */
  private specs(agent: AgentDefinition): ToolSpec[] {
    let specs = this.toolSpecs.get(agent);
    if (!specs) {
      specs = toolsOf(agent);
      this.toolSpecs.set(agent, specs);
    }
    return specs;
  }

  /** The agent's `api_key_secret`; throws when the policy refuses it (nothing read). */
  private refuseSecret(agent: AgentDefinition): string | undefined {
    const name = agent.api_key_secret;
    const refusal = name === undefined ? undefined : this.options.secretRefusal?.(agent, name);
    if (refusal) throw refusal;
    return name;
  }

  /**
   * Reads the agent's key, and tells the run it is a secret: a model answer (a prompt injection,
   * a proxy echoing headers) or an error that carries it shows `***` wherever the run records it.
   */
  private async apiKey(agent: AgentDefinition, call: AgentCall): Promise<string | undefined> {
    const name = this.refuseSecret(agent);
    if (name === undefined) return undefined;
    const value = await this.options.secrets.get(name);
    if (value === undefined || value === '') {
      throw new ValidationError(
        `the secret ${name} (api_key_secret of agent ${agent.namespace}/${agent.name}) is not set`,
        {
          field: 'agent.api_key_secret',
          constraint: 'secret',
          secret: name,
        },
      );
    }
    call.context.addSecret?.(name, value);
    return value;
  }
}
