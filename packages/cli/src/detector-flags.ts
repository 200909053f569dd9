import type { Command } from 'commander';
import {
  configuredDetectorsOf,
  judgeSettingsFromEnv,
  moderationSettingsFromEnv,
} from '@weft/agents';

/** The flags of the model-judged detectors (`weft workflow run|test|validate`). */
export interface DetectorFlags {
  moderationUrl?: string;
  moderationModel?: string;
  judgeModel?: string;
  judgeBaseUrl?: string;
}

/**
 * Adds `--moderation-url` and `--moderation-model` (the moderation endpoint), `--judge-model` and
 * `--judge-base-url` (the judge model) to `command`.
 */
export function addDetectorOptions<T extends Command>(command: T): T {
  command
    .option(
      '--moderation-url <url>',
      'OpenAI-compatible moderation endpoint offered as the toxicity detector "moderation" (default: WEFT_MODERATION_URL; key from WEFT_MODERATION_API_KEY)',
    )
    .option('--moderation-model <id>', 'its model (default: WEFT_MODERATION_MODEL)')
    .option(
      '--judge-model <provider:model>',
      'model offered as the detector "judge" of every guardrail check: openai, anthropic or openai-compatible (default: WEFT_JUDGE_MODEL; key from WEFT_JUDGE_API_KEY)',
    )
    .option(
      '--judge-base-url <url>',
      'base URL of its API, required for openai-compatible (default: WEFT_JUDGE_BASE_URL)',
    );
  return command;
}

/**
 * The detectors of runs on this machine: the lexical ones, the moderation endpoint of the flags
 * or of `WEFT_MODERATION_*`, and the judge model of the flags or of `WEFT_JUDGE_*` (each key
 * from `WEFT_<…>_API_KEY`, or the variable `WEFT_SECRET_<NAME>` that `WEFT_<…>_API_KEY_SECRET`
 * names). Throws `VALIDATION` on a setting that cannot be used.
 */
export function cliDetectors(
  flags: DetectorFlags,
  env: Readonly<Record<string, string | undefined>>,
): ReturnType<typeof configuredDetectorsOf> {
  const settings = moderationSettingsFromEnv({
    ...env,
    ...(flags.moderationUrl !== undefined ? { WEFT_MODERATION_URL: flags.moderationUrl } : {}),
    ...(flags.moderationModel !== undefined
      ? { WEFT_MODERATION_MODEL: flags.moderationModel }
      : {}),
  });
  const judge = judgeSettingsFromEnv({
    ...env,
    ...(flags.judgeModel !== undefined ? { WEFT_JUDGE_MODEL: flags.judgeModel } : {}),
    ...(flags.judgeBaseUrl !== undefined ? { WEFT_JUDGE_BASE_URL: flags.judgeBaseUrl } : {}),
  });
  return configuredDetectorsOf(settings, (name) => env[`WEFT_SECRET_${name}`], judge);
}
