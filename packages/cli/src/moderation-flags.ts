import type { Command } from 'commander';
import { configuredDetectorsOf, moderationSettingsFromEnv } from '@weft/server';

/** The flags of the moderation endpoint (`weft workflow run|test|validate`). */
export interface ModerationFlags {
  moderationUrl?: string;
  moderationModel?: string;
}

/** Adds `--moderation-url` and `--moderation-model` to `command`. */
export function addModerationOptions<T extends Command>(command: T): T {
  command
    .option(
      '--moderation-url <url>',
      'OpenAI-compatible moderation endpoint offered as the toxicity detector "moderation" (default: WEFT_MODERATION_URL; key from WEFT_MODERATION_API_KEY)',
    )
    .option('--moderation-model <id>', 'its model (default: WEFT_MODERATION_MODEL)');
  return command;
}

/**
 * The detectors of runs on this machine: the lexical ones, and the moderation endpoint of the
 * flags or of `WEFT_MODERATION_*` (the key from `WEFT_MODERATION_API_KEY`, or the variable
 * `WEFT_SECRET_<NAME>` that `WEFT_MODERATION_API_KEY_SECRET` names). Throws `VALIDATION` on a
 * setting that cannot be used.
 */
export function cliDetectors(
  flags: ModerationFlags,
  env: Readonly<Record<string, string | undefined>>,
): ReturnType<typeof configuredDetectorsOf> {
  const settings = moderationSettingsFromEnv({
    ...env,
    ...(flags.moderationUrl !== undefined ? { WEFT_MODERATION_URL: flags.moderationUrl } : {}),
    ...(flags.moderationModel !== undefined
      ? { WEFT_MODERATION_MODEL: flags.moderationModel }
      : {}),
  });
  return configuredDetectorsOf(settings, (name) => env[`WEFT_SECRET_${name}`]);
}
