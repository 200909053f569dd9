import { BackendError } from '@weft/core';
import type { Detection, DetectionRequest, Detector } from './detector.js';

/** Options of {@link moderationDetector}. */
export interface ModerationDetectorOptions {
  /** Base URL of an OpenAI-compatible API, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`; take it from the secrets provider, not a file. */
  apiKey?: string;
  /** The moderation model; the server's default when not given. */
  model?: string;
  /** Longest wait for an answer; default 10 s. */
  timeoutMs?: number;
  /** The name workflows choose it by (`guardrails.detectors.toxicity`); default `moderation`. */
  name?: string;
}

interface ModerationResult {
  flagged?: unknown;
  categories?: Record<string, unknown>;
  category_scores?: Record<string, unknown>;
}

/**
 * A model-judged toxicity detector: asks an OpenAI-compatible moderation endpoint
 * (`POST <baseUrl>/moderations`) about the output's text. `score` is the highest category
 * score (0–1), `found` counts the categories it flagged (`harassment`, `hate`, …). A failed or
 * malformed answer fails the step with `BACKEND_ERROR` (fail closed): it never lets the output
 * through unjudged. Register it in place of the lexical `toxicityDetector`.
 */
export function moderationDetector(options: ModerationDetectorOptions): Detector {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/moderations`;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const name = options.name ?? 'moderation';
  const fail = (why: string): BackendError =>
    new BackendError(
      `the toxicity detector "${name}" (${url}) could not judge the output, so it is blocked: ${why}`,
      { backend: 'moderation', detector: name, url, original_error: why },
    );
  return {
    name,
    check: 'toxicity',
    async detect({ text, signal }: DetectionRequest): Promise<Detection> {
      const timeout = AbortSignal.timeout(timeoutMs);
      let response: Response;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
          },
          body: JSON.stringify({ input: text, ...(options.model ? { model: options.model } : {}) }),
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
      } catch (error) {
        throw fail(timeout.aborted ? `no answer within ${timeoutMs} ms` : (error as Error).message);
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw fail(`HTTP ${response.status}`);
      }
      let body: unknown;
      try {
        body = await response.json();
      } catch {
        throw fail('the answer is not JSON');
      }
      const results = (body as { results?: unknown }).results;
      if (!Array.isArray(results) || results.length === 0) throw fail('the answer has no results');
      return judge(results as ModerationResult[], fail);
    },
  };
}

/** The highest score and the flagged categories over every result. */
function judge(results: ModerationResult[], fail: (why: string) => Error): Detection {
  let score = 0;
  const found: Record<string, number> = {};
  for (const result of results) {
    const scores = result.category_scores ?? {};
    for (const value of Object.values(scores)) {
      if (typeof value !== 'number' || !(value >= 0 && value <= 1)) {
        throw fail('a category score is not a number from 0 to 1');
      }
      score = Math.max(score, value);
    }
    for (const [category, flagged] of Object.entries(result.categories ?? {})) {
      if (flagged === true) found[category] = (found[category] ?? 0) + 1;
    }
    if (result.flagged === true && Object.keys(found).length === 0) found['flagged'] = 1;
  }
  return { found, score };
}
