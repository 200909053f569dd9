import type { TraceContext } from '@weft/core';
import type { ValidateFunction } from 'ajv';
import type { AgentDefinition } from '../definition/schema.js';
import type { ToolSpec } from '../definition/tools.js';
import type { Budget } from './budget.js';

/** A tool ready for a backend: its spec, the action's input schema and its compiled check. */
export interface PreparedTool {
  readonly spec: ToolSpec;
  readonly description: string;
  /** The action's `input_schema` (JSON Schema), the tool's parameters. */
  readonly inputSchema: Record<string, unknown>;
  /** Checks arguments against {@link inputSchema}; errors in `validate.errors`. */
  readonly validate: ValidateFunction;
}

/** One model turn, as a backend reports it. */
export interface TurnReport {
  /** 1 for the first turn. */
  readonly turn: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** The tools the model asked for in this turn, by name (arguments left out). */
  readonly toolNames: readonly string[];
  /** The output-token cap the turn ran with (from the budget), if any. */
  readonly cappedAt: number | undefined;
  /** The model stopped because it reached the cap. */
  readonly finishedByLength: boolean;
  /** Why the turn ended: `stop`, `length`, `tool-calls`, `content-filter`, `error`, `other`. */
  readonly finishReason?: string;
}

/** A model turn that starts, as an observer sees it: names and numbers, never content. */
export interface ModelTurnStart {
  /** `<namespace>/<name>` of the agent. */
  readonly agent: string;
  /** The provider of `agent.model` (`openai`, `anthropic`, `openai-compatible`). */
  readonly provider: string;
  /** The model id of `agent.model`. */
  readonly model: string;
  /** 1 for the first turn. */
  readonly turn: number;
  /** The output-token cap of the turn, if any. */
  readonly maxOutputTokens: number | undefined;
  readonly temperature: number | undefined;
  /** The trace context of the agent step's call (`ActionCall.trace`), when the run is traced. */
  readonly trace?: TraceContext | undefined;
}

/** How a model turn ended: its token counts and finish reason, or the error code. */
export interface ModelTurnEnd {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly finishReason?: string;
  /** The error code when the turn failed (`BACKEND_ERROR`, `TIMEOUT`, ...). */
  readonly errorCode?: string;
}

/**
 * Sees the model turns of agent steps (`AgentRunnerOptions.turns`): `@weft/telemetry` turns
 * them into GenAI spans, children of the call's span (`trace`). Gets no prompt or answer.
 */
export interface ModelTurnObserver {
  /** A turn starts; call what it returns once when it ends. */
  turnStarted(start: ModelTurnStart): (end: ModelTurnEnd) => void;
}

/**
 * A model call about to go out over HTTP (a live call: never one answered from a record), as
 * {@link AgentRequest.reserveModelCall} sees it: what bounds its cost.
 */
export interface LiveModelCall {
  /**
   * UTF-8 bytes of the request body, an upper bound of its input tokens (a token of the
   * providers' byte-level tokenizers covers at least one byte, and the JSON around the text
   * adds more bytes than the chat template adds tokens); undefined when the body is not text.
   */
  readonly requestBytes: number | undefined;
  /** The output-token cap the request carries (`max_tokens`, `max_completion_tokens`, ...). */
  readonly maxOutputTokens: number | undefined;
}

/** A reservation made for a live model call (see {@link AgentRequest.reserveModelCall}). */
export interface LiveCallTicket {
  /**
   * The call got no answer (a network error, an HTTP error status): what it held is released
   * and nothing is counted. An answered call is settled by the turn that reports its usage.
   */
  failed(): Promise<void>;
}

/** What a backend gets to answer one agent step attempt. */
export interface AgentRequest {
  readonly agent: AgentDefinition;
  /** The key read through `api_key_secret`, if any. Never logged, never in an error. */
  readonly apiKey: string | undefined;
  /** The user message. */
  readonly prompt: string;
  /** The step's other input keys, given to the model as JSON context (undefined when none). */
  readonly context: Record<string, unknown> | undefined;
  readonly tools: readonly PreparedTool[];
  readonly maxSteps: number;
  readonly budget: Budget;
  /** Fires on timeout, cancellation and `timeLimit`. */
  readonly signal: AbortSignal;
  /** Most bytes one model answer may have. */
  readonly maxResponseBytes: number;
  /**
   * Turns 1 to `replayedTurns` are answered from the step's saved exchanges (a step resumed
   * after a tool call's approval, docs/agents.md#tool-approvals): no model call is made for
   * them and nothing is spent, so nothing is to be reserved or counted for them again.
   */
  readonly replayedTurns?: number;
  /**
   * Runs a tool call whose arguments passed `validate` (refused past `maxToolCalls`): resolves to
   * the action's output; rejects with an error whose message goes back to the model.
   */
  runTool(tool: PreparedTool, input: Record<string, unknown>, callId: string): Promise<unknown>;
  /** Called for a tool call refused before it ran: bad arguments, or a tool the agent has not. */
  onRefusedCall(name: string, input: unknown, error: string): void;
  /** Called after each model turn (after its refused calls). */
  onTurn(turn: TurnReport): void;
  /** Called before each model turn starts (1 for the first), with its output-token cap. */
  onTurnStart?(turn: number, maxOutputTokens: number | undefined): void;
  /**
   * Called right before each LIVE model call leaves over HTTP (each retry included; never for a
   * call answered from a record): reserves the most the call can cost in the budgets across
   * runs. The call goes when it resolves; a rejection (a budget would be crossed, the ledger is
   * out of reach) stops it before anything is sent, and the step fails with that error. The
   * backends call it from their model's `fetch` ({@link withLiveCallHook}); the `onTurn` after
   * an answered call settles it with the real usage.
   */
  reserveModelCall?(call: LiveModelCall): Promise<LiveCallTicket>;
}

/** A backend's answer. */
export interface AgentAnswer {
  /** The final answer's text. */
  readonly text: string;
  /** The structured answer, with `output_schema`. */
  readonly data?: unknown;
}

/** A model backend: the Vercel AI SDK, LangChain.js, ... */
export interface AgentBackend {
  readonly name: string;
  run(request: AgentRequest): Promise<AgentAnswer>;
}
