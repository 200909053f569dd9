import { context, SpanKind, type Tracer } from '@opentelemetry/api';
import { ATTR } from './attributes.js';
import { failSpan } from './errors.js';
import { contextOfCarrier, type TraceCarrier } from './propagation.js';

/**
 * The OpenTelemetry GenAI semantic conventions' attribute keys weft sets on model-turn spans
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/). Content attributes
 * (prompts, answers, tool arguments) are never set: names and counts only.
 */
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  /** The older name of `gen_ai.provider.name`, still read by many back ends. */
  system: 'gen_ai.system',
  requestModel: 'gen_ai.request.model',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  requestTemperature: 'gen_ai.request.temperature',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  finishReasons: 'gen_ai.response.finish_reasons',
  agentName: 'gen_ai.agent.name',
} as const;

/** A model turn that starts (the shape of `ModelTurnStart` of `@weft/agents`). */
export interface ModelTurnInfo {
  agent: string;
  provider: string;
  model: string;
  turn: number;
  maxOutputTokens: number | undefined;
  temperature: number | undefined;
  /** The trace context of the agent step's call: the turn's span is its child. */
  trace?: TraceCarrier | undefined;
}

/** How it ended (the shape of `ModelTurnEnd` of `@weft/agents`). */
export interface ModelTurnResult {
  inputTokens?: number;
  outputTokens?: number;
  finishReason?: string;
  errorCode?: string;
}

/** Sees model turns (structurally `ModelTurnObserver` of `@weft/agents`). */
export interface ModelTurnSpans {
  turnStarted(start: ModelTurnInfo): (end: ModelTurnResult) => void;
}

/** GenAI's well-known provider names for the providers weft speaks to. */
const PROVIDERS: Record<string, string> = { openai: 'openai', anthropic: 'anthropic' };

/**
 * A CLIENT span `chat <model>` per model turn of an agent step, child of the step's `action`
 * span (`trace`; else the active span); the tool calls of the turn are its siblings there, as
 * the GenAI conventions draw it. Give it to the agent runner (`AgentRunner.turns`).
 */
export function modelTurnSpans(tracer: Tracer): ModelTurnSpans {
  return {
    turnStarted(start) {
      const attributes: Record<string, string | number> = {
        [GEN_AI.operationName]: 'chat',
        [GEN_AI.providerName]: PROVIDERS[start.provider] ?? start.provider,
        [GEN_AI.system]: PROVIDERS[start.provider] ?? start.provider,
        [GEN_AI.requestModel]: start.model,
        [GEN_AI.agentName]: start.agent,
        [ATTR.agentTurn]: start.turn,
      };
      if (start.maxOutputTokens !== undefined)
        attributes[GEN_AI.requestMaxTokens] = start.maxOutputTokens;
      if (start.temperature !== undefined)
        attributes[GEN_AI.requestTemperature] = start.temperature;
      const span = tracer.startSpan(
        `chat ${start.model}`,
        { kind: SpanKind.CLIENT, attributes },
        start.trace !== undefined ? contextOfCarrier(start.trace) : context.active(),
      );
      let ended = false;
      return (end) => {
        if (ended) return;
        ended = true;
        if (end.inputTokens !== undefined) span.setAttribute(GEN_AI.inputTokens, end.inputTokens);
        if (end.outputTokens !== undefined)
          span.setAttribute(GEN_AI.outputTokens, end.outputTokens);
        if (end.finishReason !== undefined)
          span.setAttribute(GEN_AI.finishReasons, [end.finishReason.replace(/-/g, '_')]);
        if (end.errorCode !== undefined) {
          span.setAttribute('error.type', end.errorCode);
          failSpan(span, end.errorCode);
        }
        span.end();
      };
    },
  };
}
