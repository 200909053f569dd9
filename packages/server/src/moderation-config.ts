import { ValidationError } from '@weft/core';
import {
  configuredDetectors,
  type DetectorRegistry,
  type ModerationDetectorOptions,
} from '@weft/guardrails';
import { judgeDetectors } from '@weft/agents';
import { judgeDetectorOptions, type JudgeSettings } from './judge-config.js';

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
  const url = env['WEFT_MODERATION_URL']?.trim();
  const others = ['API_KEY', 'API_KEY_SECRET', 'MODEL', 'TIMEOUT_MS'].filter((name) =>
    env[`WEFT_MODERATION_${name}`]?.trim(),
  );
  if (!url) {
    if (others.length === 0) return undefined;
    throw new ValidationError(
      `WEFT_MODERATION_${others[0]} is set without WEFT_MODERATION_URL: set the endpoint too`,
      { field: 'WEFT_MODERATION_URL', constraint: 'required' },
    );
  }
  const timeout = env['WEFT_MODERATION_TIMEOUT_MS']?.trim();
  if (timeout && !/^[1-9][0-9]{0,6}$/.test(timeout)) {
    throw new ValidationError(
      `WEFT_MODERATION_TIMEOUT_MS must be a positive integer of milliseconds, not ${JSON.stringify(timeout)}`,
      { field: 'WEFT_MODERATION_TIMEOUT_MS', constraint: 'integer' },
    );
  }
  const value = (name: string) => env[`WEFT_MODERATION_${name}`]?.trim() || undefined;
  return {
    url,
    ...(value('API_KEY') ? { apiKey: value('API_KEY')! } : {}),
    ...(value('API_KEY_SECRET') ? { apiKeySecret: value('API_KEY_SECRET')! } : {}),
    ...(value('MODEL') ? { model: value('MODEL')! } : {}),
    ...(timeout ? { timeoutMs: Number(timeout) } : {}),
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
  if (settings.apiKey !== undefined && settings.apiKeySecret !== undefined) {
    throw new ValidationError(
      'set WEFT_MODERATION_API_KEY or WEFT_MODERATION_API_KEY_SECRET, not both',
      { field: 'WEFT_MODERATION_API_KEY_SECRET', constraint: 'exclusive' },
    );
  }
  let apiKey = settings.apiKey;
  if (settings.apiKeySecret !== undefined) {
    apiKey = secret(settings.apiKeySecret);
    if (apiKey === undefined) {
      throw new ValidationError(
        `WEFT_MODERATION_API_KEY_SECRET names the secret "${settings.apiKeySecret}", which is not set (WEFT_SECRET_${settings.apiKeySecret})`,
        { field: 'WEFT_MODERATION_API_KEY_SECRET', constraint: 'secret_missing' },
      );
    }
  }
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
