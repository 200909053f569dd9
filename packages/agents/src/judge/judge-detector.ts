import { setTimeout as sleep } from 'node:timers/promises';
import { BackendError, retryAfterMs, ValidationError, type ContentCheck } from '@weft/core';
import type { Detection, DetectionRequest, Detector } from '@weft/guardrails';
import type { LanguageModel } from 'ai';
import type { AgentDefinition } from '../definition/schema.js';
import { MODEL_PATTERN } from '../definition/schema.js';
import { providerModel } from '../backends/ai-sdk/models.js';
import { loadAiSdk, type AiSdk } from '../backends/ai-sdk/sdk.js';
import { findLimitError, limitedFetch } from '../backends/limited-fetch.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../run/runner.js';
import { JUDGE_SYSTEM_PROMPT, judgeMessage } from './prompt.js';
import { readVerdict, verdictSchema, type Verdict } from './verdict.js';

/** Options of {@link judgeDetectors}. */
export interface JudgeDetectorOptions {
  /** `<provider>:<model id>`: `openai`, `anthropic` or `openai-compatible` (with `baseUrl`). */
  model: string;
  /** Base URL of the API: required for `openai-compatible`, optional for the others. */
  baseUrl?: string;
  /** The API key (required for `openai` and `anthropic`); take it from the secrets provider. */
  apiKey?: string;
  /** Longest wait for a verdict, the retry included; default 30 s. */
  timeoutMs?: number;
  /** Wait before the one retry after a 429 or 5xx (a `Retry-After` within 5 s wins); default 500 ms. */
  retryDelayMs?: number;
  /** Most bytes of one answer; default 10 MiB, as for agent steps. */
  maxResponseBytes?: number;
  /** The name workflows choose it by (`guardrails.detectors.<check>`); default `judge`. */
  name?: string;
  /** The model itself, in place of `model`/`baseUrl`/`apiKey` (tests: the AI SDK's mock model). */
  languageModel?: LanguageModel;
}

/** Why a verdict could not be had; each check's detector turns it into its `BACKEND_ERROR`. */
class JudgeFailure {
  constructor(
    readonly why: string,
    readonly details: Record<string, unknown> = {},
  ) {}
}

/** The providers a judge model may come from. */
const MODEL = new RegExp(MODEL_PATTERN);

/**
 * The model-judged detectors: one per content check (`pii`, `toxicity`, `topics`), all named
 * `judge`, offered together (`DetectorRegistry.offer`) so that a workflow may choose it for any
 * check. A short fixed prompt asks the model (through the Vercel AI SDK, structured output) for
 * `{toxicity, pii: [{kind}], topics: [name]}` about the step's output, given as delimited data
 * whose instructions are ignored. One model call serves every check of one output. A failed
 * call (after one retry on 429 or 5xx), a timeout, an answer over the size limit or one that is
 * not that verdict fails the step with `BACKEND_ERROR` naming the detector (fail closed); the
 * judged text goes into no error, event or log. The settings are checked at once; the model
 * (and the AI SDK) is made at the first verdict asked.
 */
export function judgeDetectors(options: JudgeDetectorOptions): Detector[] {
  const name = options.name ?? 'judge';
  const timeoutMs = options.timeoutMs ?? 30_000;
  const retryDelayMs = options.retryDelayMs ?? 500;
  // Settings that cannot work are refused now (fail closed at start), the model made later.
  const { languageModel } = options;
  if (!languageModel) checkJudgeOptions(options);
  let made: Promise<LanguageModel> | undefined;
  const model = (): Promise<LanguageModel> =>
    (made ??= languageModel ? Promise.resolve(languageModel) : judgeModel(options));
  const label = options.languageModel ? name : options.model;
  // One verdict per detection request: the guardrails interceptor asks each check in turn.
  const verdicts = new WeakMap<DetectionRequest, Promise<Verdict | JudgeFailure>>();
  const verdictOf = (request: DetectionRequest): Promise<Verdict | JudgeFailure> => {
    let verdict = verdicts.get(request);
    if (!verdict) {
      verdict = judge(model, request, timeoutMs, retryDelayMs);
      verdicts.set(request, verdict);
    }
    return verdict;
  };
  const detector = (check: ContentCheck): Detector => ({
    name,
    check,
    async detect(request: DetectionRequest): Promise<Detection> {
      const verdict = await verdictOf(request);
      if (verdict instanceof JudgeFailure) {
        throw new BackendError(
          `the ${check} detector "${name}" (${label}) could not judge the output, so it is blocked: ${verdict.why}`,
          {
            backend: 'judge',
            detector: name,
            check,
            model: label,
            original_error: verdict.why,
            ...verdict.details,
          },
        );
      }
      if (check === 'pii') return { found: verdict.pii };
      if (check === 'topics') return { found: verdict.topics };
      return { found: {}, score: verdict.toxicity };
    },
  });
  return [detector('pii'), detector('toxicity'), detector('topics')];
}

/**
 * Refuses (fail closed) judge settings that cannot work: a model not `<provider>:<model id>`,
 * `openai-compatible` without a base URL, a base URL that is not http(s), `openai` or
 * `anthropic` without a key. `fields` names the settings in the error (`details.field`).
 */
export function checkJudgeOptions(
  options: Pick<JudgeDetectorOptions, 'model' | 'baseUrl' | 'apiKey'>,
  fields: { model: string; baseUrl: string; apiKey: string } = {
    model: 'model',
    baseUrl: 'baseUrl',
    apiKey: 'apiKey',
  },
): void {
  if (!MODEL.test(options.model)) {
    throw new ValidationError(
      `${fields.model} must be <provider>:<model id> with provider openai, anthropic or openai-compatible, not ${JSON.stringify(options.model)}`,
      { field: fields.model, constraint: 'model' },
    );
  }
  const provider = options.model.slice(0, options.model.indexOf(':'));
  if (options.baseUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(options.baseUrl);
    } catch {
      url = undefined;
    }
    if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
      throw new ValidationError(
        `${fields.baseUrl} must be an http(s) URL such as http://127.0.0.1:11434/v1, not ${JSON.stringify(options.baseUrl)}`,
        { field: fields.baseUrl, constraint: 'url' },
      );
    }
  } else if (provider === 'openai-compatible') {
    throw new ValidationError(
      `an openai-compatible judge model needs ${fields.baseUrl}: the base URL of its API`,
      { field: fields.baseUrl, constraint: 'required' },
    );
  }
  if ((provider === 'openai' || provider === 'anthropic') && options.apiKey === undefined) {
    throw new ValidationError(`an ${provider} judge model needs ${fields.apiKey}: its API key`, {
      field: fields.apiKey,
      constraint: 'required',
    });
  }
}

/** The model of checked `options`, its provider package imported first. */
async function judgeModel(options: JudgeDetectorOptions): Promise<LanguageModel> {
  const fetch = limitedFetch(options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, 'judge');
  const id = options.model.slice(options.model.indexOf(':') + 1);
  if (options.model.startsWith('openai-compatible:')) {
    // Local servers (Ollama, vLLM, llama.cpp, LM Studio) take a JSON schema as response format.
    const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
    return createOpenAICompatible({
      name: 'openai-compatible',
      baseURL: options.baseUrl!,
      ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
      supportsStructuredOutputs: true,
      fetch,
    }).chatModel(id);
  }
  const agent = { model: options.model, ...(options.baseUrl ? { base_url: options.baseUrl } : {}) };
  return providerModel(agent as AgentDefinition, options.apiKey, fetch);
}

/** Asks the model once, again once after a 429 or 5xx; a failure as a {@link JudgeFailure}. */
async function judge(
  model: () => Promise<LanguageModel>,
  request: DetectionRequest,
  timeoutMs: number,
  retryDelayMs: number,
): Promise<Verdict | JudgeFailure> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
  const [ai, languageModel] = await Promise.all([loadAiSdk(), model()]);
  const { generateText, jsonSchema, Output } = ai;
  const ask = async () => {
    const result = await generateText({
      model: languageModel,
      system: JUDGE_SYSTEM_PROMPT,
      prompt: judgeMessage(request.text, request.kinds, request.topics),
      output: Output.object({ schema: jsonSchema(verdictSchema(request.topics) as never) }),
      temperature: 0,
      maxOutputTokens: 1024,
      maxRetries: 0,
      abortSignal: signal,
    });
    return result.output;
  };
  for (let attempt = 1; ; attempt++) {
    let answer: unknown;
    try {
      answer = await ask();
    } catch (error) {
      const failure = failureOf(ai, error, timeout.aborted, timeoutMs, signal.aborted);
      const status = failure.details['status'];
      const retryable = typeof status === 'number' && (status === 429 || status >= 500);
      if (!retryable || attempt > 1) return failure;
      try {
        await sleep(retryAfterOf(ai, error) ?? retryDelayMs, undefined, { signal });
      } catch {
        return failureOf(ai, error, timeout.aborted, timeoutMs, true);
      }
      continue;
    }
    const verdict = readVerdict(answer, request.kinds, request.topics);
    return typeof verdict === 'string'
      ? new JudgeFailure(`malformed verdict: ${verdict}`)
      : verdict;
  }
}

/** What went wrong, in words that never hold the judged text nor the model's answer. */
function failureOf(
  { APICallError }: AiSdk,
  error: unknown,
  timedOut: boolean,
  timeoutMs: number,
  aborted: boolean,
): JudgeFailure {
  if (timedOut) return new JudgeFailure(`no verdict within ${timeoutMs} ms`);
  const limit = findLimitError(error);
  if (limit) {
    const bytes = limit.details?.['limit_bytes'];
    return new JudgeFailure(`the answer is larger than ${String(bytes)} bytes`, {
      limit_bytes: bytes,
    });
  }
  if (aborted) return new JudgeFailure('the step was stopped before the verdict');
  if (APICallError.isInstance(error)) {
    if (error.statusCode !== undefined) {
      return new JudgeFailure(`the model answered HTTP ${error.statusCode}`, {
        status: error.statusCode,
      });
    }
    // No HTTP answer: the network error (client-side words, no text of the request).
    return new JudgeFailure(`the model could not be reached${networkReason(error.cause)}`);
  }
  // NoObjectGeneratedError, a JSON parse error, an unexpected shape: never its message (it
  // quotes the answer, which may echo the text).
  const kind = error instanceof Error ? error.name : 'error';
  return new JudgeFailure(`malformed verdict: the answer is not the JSON asked for (${kind})`);
}

/** `: connect ECONNREFUSED 127.0.0.1:1`: the deepest network error under a failed fetch. */
function networkReason(cause: unknown): string {
  let reason = '';
  for (let e = cause, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (e.message && e.message !== 'fetch failed') reason = e.message;
    if (typeof code === 'string' && /^[A-Z_]+$/.test(code) && !reason.includes(code)) {
      reason = reason ? `${code} ${reason}` : code;
    }
  }
  return reason ? `: ${reason.slice(0, 200)}` : '';
}

/** The server's `retry-after-ms` or `Retry-After`, when within 5 s. */
function retryAfterOf({ APICallError }: AiSdk, error: unknown): number | undefined {
  if (!APICallError.isInstance(error)) return undefined;
  const headers = error.responseHeaders ?? {};
  return retryAfterMs((name) => headers[name], { maxMs: 5000 });
}
