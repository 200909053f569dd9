import { checkJudgeOptions, type JudgeDetectorOptions } from '../judge/judge-detector.js';
import { detectorEnv, detectorKey } from './detector-env.js';

/**
 * The judge model of `weft server` and `weft workflow run` (`WEFT_JUDGE_*`): a model asked by a
 * short fixed prompt to judge a step's output, offered to workflows as the detector `judge` of
 * every content check (docs/workflow-language.md#choosing-detectors).
 */
export interface JudgeSettings {
  /** `<provider>:<model id>` (`WEFT_JUDGE_MODEL`): openai, anthropic or openai-compatible. */
  model: string;
  /** Base URL of its API (`WEFT_JUDGE_BASE_URL`); required for openai-compatible. */
  baseUrl?: string;
  /** The key itself (`WEFT_JUDGE_API_KEY`). */
  apiKey?: string;
  /** The secret holding the key (`WEFT_JUDGE_API_KEY_SECRET`: `WEFT_SECRET_<NAME>`). */
  apiKeySecret?: string;
  /** Longest wait for a verdict in ms (`WEFT_JUDGE_TIMEOUT_MS`); default 30000. */
  timeoutMs?: number;
}

/** Reads `WEFT_JUDGE_*`; undefined when `WEFT_JUDGE_MODEL` is unset. */
export function judgeSettingsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): JudgeSettings | undefined {
  const read = detectorEnv(
    env,
    'WEFT_JUDGE',
    'MODEL',
    ['BASE_URL', 'API_KEY', 'API_KEY_SECRET', 'TIMEOUT_MS'],
    'set the model too',
  );
  if (!read) return undefined;
  const { value } = read;
  return {
    model: read.main,
    ...(value('BASE_URL') ? { baseUrl: value('BASE_URL')! } : {}),
    ...(value('API_KEY') ? { apiKey: value('API_KEY')! } : {}),
    ...(value('API_KEY_SECRET') ? { apiKeySecret: value('API_KEY_SECRET')! } : {}),
    ...(read.timeoutMs !== undefined ? { timeoutMs: read.timeoutMs } : {}),
  };
}

/**
 * The judge detector's options from the settings, the key read from `secret` when named.
 * Refuses (fail closed, at start) a model that is not `<provider>:<model id>`, a base URL that
 * is not http(s) or missing for openai-compatible, a key given twice or missing for openai and
 * anthropic, and a named secret that is not set.
 */
export function judgeDetectorOptions(
  settings: JudgeSettings,
  secret: (name: string) => string | undefined,
): JudgeDetectorOptions {
  const apiKey = detectorKey('WEFT_JUDGE', settings, secret);
  const options: JudgeDetectorOptions = {
    model: settings.model,
    ...(settings.baseUrl !== undefined ? { baseUrl: settings.baseUrl } : {}),
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
  };
  checkJudgeOptions(options, {
    model: 'WEFT_JUDGE_MODEL',
    baseUrl: 'WEFT_JUDGE_BASE_URL',
    apiKey: 'WEFT_JUDGE_API_KEY',
  });
  return options;
}
