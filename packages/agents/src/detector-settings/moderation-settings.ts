import { ValidationError } from '@weft/core';
import {
  configuredDetectors,
  type DetectorRegistry,
  type ModerationDetectorOptions,
} from '@weft/guardrails';
import { judgeDetectors } from '../judge/judge-detector.js';
import { detectorKey, detectorEnv } from './detector-env.js';
import { judgeDetectorOptions, type JudgeSettings } from './judge-settings.js';

/**
 * The moderation endpoint of `weft server` and `weft workflow run` (`WEFT_MODERATION_*`): an
 * OpenAI-compatible `POST <url>/moderations`, offered to workflows as the toxicity detector
 * `moderation` (docs/workflow-language.md#choosing-detectors).
 */
export interface ModerationSettings {
  /** Base URL, e.g. `https://api.openai.com/v1` (`WEFT_MODERATION_URL`). */
  url: string;
  /** The key itself (`WEFT_MODERATION_API_KEY`). */
  apiKey?: string;
  /** The secret holding the key (`WEFT_MODERATION_API_KEY_SECRET`: `WEFT_SECRET_<NAME>`). */
  apiKeySecret?: string;
  /** The moderation model (`WEFT_MODERATION_MODEL`); the endpoint's default when unset. */
  model?: string;
  /** Longest wait for an answer in ms (`WEFT_MODERATION_TIMEOUT_MS`); default 10000. */
  timeoutMs?: number;
}

/** Reads `WEFT_MODERATION_*`; undefined when `WEFT_MODERATION_URL` is unset. */
export function moderationSettingsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): ModerationSettings | undefined {
  const read = detectorEnv(
    env,
    'WEFT_MODERATION',
    'URL',
    ['API_KEY', 'API_KEY_SECRET', 'MODEL', 'TIMEOUT_MS'],
    'set the endpoint too',
  );
  if (!read) return undefined;
  const { value } = read;
  return {
    url: read.main,
    ...(value('API_KEY') ? { apiKey: value('API_KEY')! } : {}),
    ...(value('API_KEY_SECRET') ? { apiKeySecret: value('API_KEY_SECRET')! } : {}),
    ...(value('MODEL') ? { model: value('MODEL')! } : {}),
    ...(read.timeoutMs !== undefined ? { timeoutMs: read.timeoutMs } : {}),
  };
}

/**
 * The moderation detector's options from the settings, the key read from `secret` when named.
 * Refuses (fail closed, at start) a URL that is not http(s), a key given twice, and a named
 * secret that is not set.
 */
export function moderationDetectorOptions(
  settings: ModerationSettings,
  secret: (name: string) => string | undefined,
): ModerationDetectorOptions {
  let url: URL;
  try {
    url = new URL(settings.url);
  } catch {
    url = new URL('invalid:');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ValidationError(
      `WEFT_MODERATION_URL must be an http(s) URL such as https://api.openai.com/v1, not ${JSON.stringify(settings.url)}`,
      { field: 'WEFT_MODERATION_URL', constraint: 'url' },
    );
  }
  const apiKey = detectorKey('WEFT_MODERATION', settings, secret);
  return {
    baseUrl: settings.url,
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(settings.model !== undefined ? { model: settings.model } : {}),
    ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
  };
}

/**
 * The guardrail detectors of runs in this process: the lexical ones, the moderation endpoint of
 * `settings` offered as `moderation`, and the judge model of `judge` offered as `judge` for
 * every check (their keys from `secret` when named).
 */
export function configuredDetectorsOf(
  settings: ModerationSettings | undefined,
  secret: (name: string) => string | undefined,
  judge?: JudgeSettings,
): DetectorRegistry {
  const registry = configuredDetectors(
    settings ? { moderation: moderationDetectorOptions(settings, secret) } : {},
  );
  if (judge) {
    for (const detector of judgeDetectors(judgeDetectorOptions(judge, secret))) {
      registry.offer(detector);
    }
  }
  return registry;
}
