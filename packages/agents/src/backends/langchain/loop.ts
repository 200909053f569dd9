import {
  AIMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  type AIMessageChunk,
  type BaseMessage,
  type ToolCall,
  type UsageMetadata,
} from '@langchain/core/messages';
import { BackendError, WeftError } from '@weft/core';
import { Ajv, type ValidateFunction } from 'ajv';
import type { AgentAnswer, AgentRequest, PreparedTool } from '../../run/contract.js';
import { describeInvalid } from '../../run/prepare-tools.js';
import { errorText, maxStepsError, userMessage } from '../common.js';
import { findLimitError } from '../limited-fetch.js';
import { runWithLiveCallHook } from '../live-calls.js';
import { modelFetch } from '../model-fetch.js';
import type { LangChainModel } from './models.js';
import { statusOf, withRetry, type RetryPolicy } from './retry.js';

/** The model's chat interface as the loop uses it (the tools bound). */
interface Turnable {
  invoke(messages: BaseMessage[], options: Record<string, unknown>): Promise<AIMessage>;
  stream(
    messages: BaseMessage[],
    options: Record<string, unknown>,
  ): Promise<AsyncIterable<AIMessageChunk>>;
}

/** One tool call of a turn: asked with parsed arguments, or with arguments that are not JSON. */
interface AskedCall {
  readonly id: string;
  readonly name: string;
  readonly args: unknown;
  /** Why the call was refused before it ran, if it was. */
  refused?: string;
}

// Made on first use: an ajv instance compiles its meta-schema, which every importer would pay.
let ajv: Ajv | undefined;
const outputChecks = new WeakMap<object, ValidateFunction>();

/**
 * The tool loop of the `langchain` backend: the model with the tools bound, turn after turn:
 * the output-token cap set before each turn, each tool call checked against the action's schema
 * and admitted by the budget before it runs (bad arguments and unknown tools go back to the
 * model as tool errors), and the loop stopped as soon as a budget trips or `max_steps` turns
 * are spent. Retries (429, 5xx) are weft's, with backoff; answers pass through the size limit.
 */
export async function runToolLoop(
  request: AgentRequest,
  makeModel: (fetch: typeof globalThis.fetch) => Promise<LangChainModel>,
  retry: RetryPolicy,
  backend: string,
): Promise<AgentAnswer> {
  const { budget, signal, agent } = request;
  try {
    const made = await makeModel(modelFetch(request.maxResponseBytes, backend));
    const tools = new Map(request.tools.map((t) => [t.spec.name, t]));
    const model = bound(made, request.tools);
    const messages: BaseMessage[] = [];
    if (agent.instructions !== undefined) messages.push(new SystemMessage(agent.instructions));
    messages.push(new HumanMessage(userMessage(request)));
    // Streamed when asked, and with output_schema: the non-streamed path of @langchain/openai
    // goes through `chat.completions.parse`, which refuses tools that are not strict.
    const streamed = agent.streaming === true || agent.output_schema !== undefined;
    const options = { signal, ...structured(made, agent.output_schema) };
    for (let turn = 1; ; turn++) {
      const cap = budget.outputCap();
      if (budget.tripped) throw budget.tripped;
      made.setMaxTokens(cap);
      request.onTurnStart?.(turn, cap);
      const message = await runWithLiveCallHook(request, () =>
        withRetry(
          () => (streamed ? streamTurn(model, messages, options) : model.invoke(messages, options)),
          retry,
          signal,
        ),
      );
      const asked = callsOf(message);
      const results = await Promise.all(asked.map((call) => runCall(call, tools, request)));
      asked.forEach((call) => {
        if (call.refused !== undefined) request.onRefusedCall(call.name, call.args, call.refused);
      });
      const usage = usageOf(message);
      const finish = message.response_metadata as Record<string, unknown> | undefined;
      const reason = finish?.['finish_reason'] ?? finish?.['stop_reason'];
      request.onTurn({
        turn,
        inputTokens: usage?.input_tokens ?? 0,
        outputTokens: usage?.output_tokens ?? 0,
        toolNames: asked.map((c) => c.name),
        cappedAt: cap,
        finishedByLength: reason === 'length' || reason === 'max_tokens',
        ...(typeof reason === 'string' ? { finishReason: reason } : {}),
      });
      if (budget.tripped) throw budget.tripped;
      if (asked.length === 0) return answerOf(message.text, agent.output_schema);
      if (turn >= request.maxSteps) throw maxStepsError(request.maxSteps);
      messages.push(historyOf(message, asked), ...toolReplies(made.provider, results));
    }
  } catch (error) {
    if (signal.aborted && signal.reason instanceof Error) throw signal.reason;
    throw budget.tripped ?? findLimitError(error) ?? asModelError(error, request.apiKey, backend);
  }
}

/**
 * A message's token usage. LangChain infers `usage_metadata` through conditional types over the
 * message structure that resolve to `never` under `exactOptionalPropertyTypes` (an optional
 * `properties` field read as `X | undefined`), so the field is read with its documented type.
 */
function usageOf(message: AIMessage | AIMessageChunk): UsageMetadata | undefined {
  return (message as WithUsage).usage_metadata;
}

/** A message's usage field with its documented type (see {@link usageOf}). */
interface WithUsage {
  usage_metadata?: UsageMetadata | undefined;
}

/** The model with the agent's tools bound (their parameters: the actions' input schemas). */
function bound(made: LangChainModel, tools: readonly PreparedTool[]): Turnable {
  if (tools.length === 0 || !made.model.bindTools) return made.model;
  return made.model.bindTools(
    tools.map((t) => ({
      type: 'function' as const,
      function: { name: t.spec.name, description: t.description, parameters: t.inputSchema },
    })),
  );
}

/** The call options asking for a structured answer, by provider. */
function structured(
  made: LangChainModel,
  schema: Record<string, unknown> | undefined,
): Record<string, unknown> {
  if (schema === undefined) return {};
  if (made.provider === 'anthropic') {
    return { outputConfig: { format: { type: 'json_schema', schema } } };
  }
  return { response_format: { type: 'json_schema', json_schema: { name: 'answer', schema } } };
}

/** One streamed turn, its chunks joined into one message (tool calls, usage, finish reason). */
async function streamTurn(
  model: Turnable,
  messages: BaseMessage[],
  options: Record<string, unknown>,
): Promise<AIMessage> {
  let joined: AIMessageChunk | undefined;
  let input = 0;
  let output = 0;
  for await (const chunk of await model.stream(messages, options)) {
    joined = joined === undefined ? chunk : joined.concat(chunk);
    input = Math.max(input, usageOf(chunk)?.input_tokens ?? 0);
    output = Math.max(output, usageOf(chunk)?.output_tokens ?? 0);
  }
  if (joined === undefined) throw new Error('the model answered an empty stream');
  // Chunks report usage once (OpenAI) or cumulatively (Anthropic: message_delta's output tokens
  // include those of message_start), and LangChain adds them up: the turn used the largest.
  const usage = usageOf(joined);
  if (usage) {
    (joined as WithUsage).usage_metadata = {
      ...usage,
      input_tokens: input,
      output_tokens: output,
      total_tokens: input + output,
    };
  }
  return joined;
}

/**
 * The tool messages of a turn as the provider gets them. `@langchain/anthropic` sends a
 * ToolMessage as a `tool_result` without `is_error` whatever its status, so for Anthropic the
 * results go as one user message of `tool_result` blocks, the failed ones with `is_error: true`.
 */
function toolReplies(provider: LangChainModel['provider'], results: ToolMessage[]): BaseMessage[] {
  if (provider !== 'anthropic') return results;
  return [
    new HumanMessage({
      content: results.map((r) => ({
        type: 'tool_result',
        tool_use_id: r.tool_call_id,
        content: r.text,
        ...(r.status === 'error' ? { is_error: true } : {}),
      })),
    }),
  ];
}

/** The tool calls of a turn, in the order asked; calls whose arguments are not JSON refused. */
function callsOf(message: AIMessage): AskedCall[] {
  // A streamed turn's arguments arrive as text that LangChain parses leniently (`{"id": "4`
  // becomes {id: "4"}): they are held to strict JSON here, as a whole answer's are.
  const streamed = new Map(
    ((message as unknown as AIMessageChunk).tool_call_chunks ?? []).map((c) => [c.id, c.args]),
  );
  const calls: AskedCall[] = (message.tool_calls ?? []).map((c, i) => {
    const raw = streamed.get(c.id);
    const call = { id: c.id ?? `call_${i}`, name: c.name, args: c.args };
    if (raw === undefined || raw.trim() === '' || isJson(raw)) return call;
    return {
      ...call,
      args: raw,
      refused: `VALIDATION: the arguments of ${c.name} are not valid JSON`,
    };
  });
  for (const [i, c] of (message.invalid_tool_calls ?? []).entries()) {
    const name = c.name ?? '(no name)';
    calls.push({
      id: c.id ?? `invalid_${i}`,
      name,
      args: c.args,
      refused: `VALIDATION: the arguments of ${name} are not valid JSON${c.error ? ` (${c.error})` : ''}`,
    });
  }
  return calls;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Checks a tool call and runs it; its result, or its error, as the tool message. */
async function runCall(
  call: AskedCall,
  tools: ReadonlyMap<string, PreparedTool>,
  request: AgentRequest,
): Promise<ToolMessage> {
  const reply = (content: string, status: 'success' | 'error') =>
    new ToolMessage({ content, tool_call_id: call.id, name: call.name, status });
  const refuse = (why: string) => {
    call.refused = why;
    return reply(why, 'error');
  };
  if (call.refused !== undefined) return reply(call.refused, 'error');
  const tool = tools.get(call.name);
  if (!tool) {
    return refuse(
      `VALIDATION: there is no tool "${call.name}"; the tools are: ${[...tools.keys()].join(', ') || 'none'}`,
    );
  }
  if (!tool.validate(call.args)) {
    return refuse(
      `VALIDATION: invalid arguments for ${call.name}: ${describeInvalid(tool.validate)}`,
    );
  }
  try {
    const output = await request.runTool(tool, call.args as Record<string, unknown>, call.id);
    return reply(JSON.stringify(output ?? null), 'success');
  } catch (error) {
    return reply(errorText(error), 'error');
  }
}

/**
 * The model's turn as the history keeps it: as answered, unless some calls had arguments that
 * are not JSON (LangChain would leave them out, and their tool messages would answer nothing).
 */
function historyOf(message: AIMessage, asked: readonly AskedCall[]): AIMessage {
  if (!asked.some((c) => !(message.tool_calls ?? []).some((t) => t.id === c.id))) {
    return message;
  }
  const toolCalls: ToolCall[] = asked.map((c) => ({
    id: c.id,
    name: c.name,
    type: 'tool_call',
    args: typeof c.args === 'object' && c.args !== null ? (c.args as Record<string, unknown>) : {},
  }));
  return new AIMessage({ content: message.text, tool_calls: toolCalls });
}

/** The final answer; with `output_schema`, its JSON checked against the schema as `data`. */
function answerOf(text: string, schema: Record<string, unknown> | undefined): AgentAnswer {
  if (schema === undefined) return { text };
  let check = outputChecks.get(schema);
  if (!check) {
    check = (ajv ??= new Ajv({ strict: false, allErrors: true })).compile(schema);
    outputChecks.set(schema, check);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new BackendError("the model's answer is not the JSON output_schema asks for", {
      backend: 'langchain',
      original_error: 'the answer is not JSON',
      field: 'agent.output_schema',
      constraint: 'output_schema',
    });
  }
  if (!check(data)) {
    throw new BackendError(
      `the model's answer does not match output_schema: ${describeInvalid(check)}`,
      {
        backend: 'langchain',
        original_error: 'the answer does not match output_schema',
        field: 'agent.output_schema',
        constraint: 'output_schema',
      },
    );
  }
  return { text, data };
}

/** A model call that failed (after the retries) as `BACKEND_ERROR`, without the key. */
function asModelError(error: unknown, apiKey: string | undefined, backend: string): WeftError {
  if (error instanceof WeftError) return error;
  const status = statusOf(error);
  let message = error instanceof Error ? error.message : String(error);
  if (apiKey) message = message.split(apiKey).join('***');
  return new BackendError(`the model call failed: ${message}`, {
    backend,
    ...(status !== undefined ? { status } : {}),
    original_error: message,
  });
}
