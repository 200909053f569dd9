import { BackendError, WeftError } from '@weft/core';
import type { LanguageModel, StepResult, ToolSet } from 'ai';
import type { AgentAnswer, AgentBackend, AgentRequest, PreparedTool } from '../../run/contract.js';
import { describeInvalid } from '../../run/prepare-tools.js';
import { errorText, maxStepsError, userMessage } from '../common.js';
import { findLimitError } from '../limited-fetch.js';
import { runWithLiveCallHook } from '../live-calls.js';
import { modelFetch } from '../model-fetch.js';
import { providerModel, type ModelFactory } from './models.js';
import { loadAiSdk, type AiSdk } from './sdk.js';
import { keepAiSdkWarningsOffStdout } from './warnings.js';

/** Options of {@link AiSdkBackend}. */
export interface AiSdkBackendOptions {
  /** Makes the model of an agent (default: the provider packages); tests give a mock model. */
  model?: ModelFactory;
  /** Retries of a model call on 429, 5xx and network errors (the AI SDK's backoff). Default 2. */
  maxRetries?: number;
}

/**
 * The `ai-sdk` backend: the Vercel AI SDK's tool loop (`generateText`, or `streamText` for an
 * agent with `streaming: true`) with weft's tools, budgets and limits wired into its hooks:
 * arguments checked by the action's schema before `execute` (an invalid call goes back to the
 * model as a tool error), `maxToolCalls` counted inside `execute`, output tokens capped per turn
 * in `prepareStep`, and the loop stopped as soon as a budget trips. The AI SDK is imported at
 * the first step that runs.
 */
export class AiSdkBackend implements AgentBackend {
  readonly name = 'ai-sdk';
  private readonly model: ModelFactory;
  private readonly maxRetries: number;
  private readonly models = new WeakMap<object, Map<string, Promise<LanguageModel>>>();

  constructor(options: AiSdkBackendOptions = {}) {
    this.model = options.model ?? providerModel;
    this.maxRetries = options.maxRetries ?? 2;
    keepAiSdkWarningsOffStdout();
  }

  async run(request: AgentRequest): Promise<AgentAnswer> {
    const [ai, model] = await Promise.all([loadAiSdk(), this.modelOf(request)]);
    const { generateText, jsonSchema, Output, stepCountIs } = ai;
    const { budget } = request;
    let turn = 0;
    let cap: number | undefined;
    const settings = {
      model,
      ...(request.agent.instructions !== undefined ? { system: request.agent.instructions } : {}),
      prompt: userMessage(request),
      tools: toolSet(ai, request),
      maxRetries: this.maxRetries,
      abortSignal: request.signal,
      ...(request.agent.temperature !== undefined
        ? { temperature: request.agent.temperature }
        : {}),
      stopWhen: [stepCountIs(request.maxSteps), () => budget.tripped !== undefined],
      prepareStep: () => {
        cap = budget.outputCap();
        if (budget.tripped) throw budget.tripped;
        request.onTurnStart?.(turn + 1, cap);
        return cap === undefined ? undefined : { maxOutputTokens: cap };
      },
      onStepFinish: (step: StepResult<ToolSet>) => {
        turn++;
        for (const part of step.content) {
          if (part.type === 'tool-error' && !isRun(part)) {
            request.onRefusedCall(part.toolName, part.input, errorText(part.error));
          }
        }
        request.onTurn({
          turn,
          inputTokens: step.usage.inputTokens ?? 0,
          outputTokens: step.usage.outputTokens ?? 0,
          toolNames: step.toolCalls.map((c) => c.toolName),
          cappedAt: cap,
          finishedByLength: step.finishReason === 'length',
          finishReason: step.finishReason,
        });
      },
      ...(request.agent.output_schema
        ? { output: Output.object({ schema: jsonSchema(request.agent.output_schema as never) }) }
        : {}),
    };
    try {
      if (request.agent.streaming) {
        return await runWithLiveCallHook(request, () =>
          this.stream(ai, settings, request, () => turn),
        );
      }
      const result = await runWithLiveCallHook(request, () => generateText(settings));
      return answer(
        result.text,
        request.agent.output_schema ? result.output : undefined,
        result.finishReason,
        turn,
        request,
      );
    } catch (error) {
      throw budget.tripped ?? findLimitError(error) ?? asModelError(ai, error, request.apiKey);
    }
  }

  /**
   * The model of an agent, made once per definition, key and limit (providers are reusable); a
   * factory that fails is asked again by the next step.
   */
  private modelOf(request: AgentRequest): Promise<LanguageModel> {
    let byAgent = this.models.get(request.agent);
    if (!byAgent) {
      byAgent = new Map();
      this.models.set(request.agent, byAgent);
    }
    const key = `${request.maxResponseBytes}:${request.apiKey ?? ''}`;
    let model = byAgent.get(key);
    if (!model) {
      const fetch = modelFetch(request.maxResponseBytes);
      const made = (async () => this.model(request.agent, request.apiKey, fetch))();
      // A rotated key leaves its old entry: keep only the latest few.
      if (byAgent.size >= 4) byAgent.clear();
      byAgent.set(key, made);
      const entries = byAgent;
      made.catch(() => {
        if (entries.get(key) === made) entries.delete(key);
      });
      model = made;
    }
    return model;
  }

  private async stream(
    { streamText }: AiSdk,
    settings: Parameters<AiSdk['streamText']>[0],
    request: AgentRequest,
    turns: () => number,
  ): Promise<AgentAnswer> {
    let failure: unknown;
    const result = streamText({ ...settings, onError: ({ error }) => void (failure ??= error) });
    await result.consumeStream({ onError: (error) => void (failure ??= error) });
    if (failure !== undefined) throw failure;
    const [text, finishReason] = await Promise.all([result.text, result.finishReason]);
    const data = request.agent.output_schema ? await result.output : undefined;
    return answer(text, data, finishReason, turns(), request);
  }
}

/** Marks tool errors thrown by a tool that ran (as opposed to refused before running). */
const RAN = Symbol('ran');

function isRun(part: { error: unknown }): boolean {
  return typeof part.error === 'object' && part.error !== null && RAN in part.error;
}

function answer(
  text: string,
  data: unknown,
  finishReason: string,
  turns: number,
  request: AgentRequest,
): AgentAnswer {
  if (request.budget.tripped) throw request.budget.tripped;
  if (finishReason === 'tool-calls' && turns >= request.maxSteps) {
    throw maxStepsError(request.maxSteps);
  }
  return { text, ...(data !== undefined ? { data } : {}) };
}

function toolSet(ai: AiSdk, request: AgentRequest): ToolSet {
  const tools: ToolSet = {};
  for (const prepared of request.tools) tools[prepared.spec.name] = toolOf(ai, prepared, request);
  return tools;
}

function toolOf({ tool, jsonSchema }: AiSdk, prepared: PreparedTool, request: AgentRequest) {
  return tool({
    description: prepared.description,
    inputSchema: jsonSchema<Record<string, unknown>>(prepared.inputSchema as never, {
      validate: (value) =>
        prepared.validate(value)
          ? { success: true, value: value as Record<string, unknown> }
          : {
              success: false,
              error: new Error(
                `VALIDATION: invalid arguments for ${prepared.spec.name}: ${describeInvalid(prepared.validate)}`,
              ),
            },
    }),
    execute: async (input, { toolCallId }) => {
      try {
        return await request.runTool(prepared, input, toolCallId);
      } catch (error) {
        const ran = new Error(errorText(error));
        (ran as unknown as Record<symbol, boolean>)[RAN] = true;
        throw ran;
      }
    },
  });
}

/** A model call that failed (after the AI SDK's retries) as `BACKEND_ERROR`, without the key. */
function asModelError(
  { APICallError, RetryError }: AiSdk,
  error: unknown,
  apiKey: string | undefined,
): WeftError {
  if (error instanceof WeftError) return error;
  const last = RetryError.isInstance(error) ? error.lastError : error;
  const status = APICallError.isInstance(last) ? last.statusCode : undefined;
  let message = error instanceof Error ? error.message : String(error);
  if (apiKey) message = message.split(apiKey).join('***');
  return new BackendError(`the model call failed: ${message}`, {
    backend: 'ai-sdk',
    ...(status !== undefined ? { status } : {}),
    original_error: message,
  });
}
